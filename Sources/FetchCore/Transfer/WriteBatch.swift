/// Gathers the pieces of one connection's body into one write per socket read.
///
/// libcurl reads up to 256 KiB from the socket at once (`CURLOPT_BUFFERSIZE`) but hands them to
/// the write callback cut into pieces of at most 16 KiB (`CURL_MAX_WRITE_SIZE`, fixed when
/// libcurl is built). Each piece written on its own costs a `pwrite` and the page cache's work
/// per call: on ext4, 64 MiB written in 16 KiB pieces took twice the system time of the same
/// bytes in 256 KiB writes (`bench/README.md`, Downloads). So the pieces that follow each other
/// are copied here, and go to the file together when the connection's turn of the multi handle
/// ends, or sooner when a piece does not follow on or does not fit.
///
/// Bytes held here are in no file yet. A failed `flush()` drops them: the caller must then not
/// count them as written (`Transfer` steps back over them).
final class WriteBatch {
    private let partial: PartialFile
    private let storage: UnsafeMutableRawBufferPointer
    /// The file offset of the first byte held.
    private var offset: Int64 = 0
    /// Bytes held, from `offset`.
    private(set) var held = 0

    /// - Parameter capacity: bytes held at most; the size of one read.
    init(partial: PartialFile, capacity: Int) {
        self.partial = partial
        storage = .allocate(byteCount: max(capacity, 1), alignment: 64)
    }

    deinit { storage.deallocate() }

    /// Holds `bytes`, which belong at `position` of the partial's data file, when they follow
    /// what is held and fit beside it; false when they must go another way (after `flush()`,
    /// or straight to the file when they are as large as the buffer).
    func take(_ bytes: UnsafeRawBufferPointer, at position: Int64) -> Bool {
        guard let source = bytes.baseAddress else { return true }
        guard bytes.count < storage.count,
              held == 0 || (position == offset + Int64(held) && held + bytes.count <= storage.count) else { return false }
        if held == 0 { offset = position }
        (storage.baseAddress! + held).copyMemory(from: source, byteCount: bytes.count)
        held += bytes.count
        return true
    }

    /// Writes what is held into the file, in one call; on failure what was held is dropped.
    func flush() throws(DownloadError) {
        guard held > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: storage.baseAddress, count: held)
        held = 0
        try partial.store(bytes, at: offset)
    }
}

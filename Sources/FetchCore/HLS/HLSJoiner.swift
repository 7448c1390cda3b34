import Glibc

/// Writes a presentation's segments one after the other into one file, in the clear: byte
/// ranges cut out of their resource, AES-128 undone, each init section (`EXT-X-MAP`) written
/// once before the first segment that needs it. MPEG-TS joins this way by design; fragmented
/// MP4 becomes one fragmented file.
struct HLSJoiner {
    /// The whole file of each resource URL (from `HLSPresentation.finishedPath`).
    let path: (String) -> String?
    /// The 16 key bytes of each key URL.
    let keys: [String: [UInt8]]

    func join(_ playlist: HLSMediaPlaylist, into output: String) throws(DownloadError) {
        FileIO.remove(output)
        let fd = try FileIO.open(output, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(fd) }
        var lastMap: HLSMap?
        for segment in playlist.segments {
            if let map = segment.map, map != lastMap {
                try append(read(map.url, map.byteRange), key: map.key, to: fd, path: output)
                lastMap = map
            }
            try append(read(segment.url, segment.byteRange), key: segment.key, to: fd, path: output)
        }
    }

    private func append(_ bytes: [UInt8], key: HLSKey?, to fd: Int32, path: String) throws(DownloadError) {
        var clear = bytes
        if let key {
            guard let secret = keys[key.url] else { throw .badResponse("the key \(key.url) is missing") }
            clear = try SegmentCipher.decrypt(bytes, key: secret, iv: key.iv)
        }
        let result = clear.withUnsafeBytes { buffer in Result { () throws(DownloadError) in try FileIO.writeAll(fd, buffer, path: path) } }
        try result.get()
    }

    /// The bytes of `url`'s resource, or of `range` within it.
    private func read(_ url: String, _ range: HLSByteRange?) throws(DownloadError) -> [UInt8] {
        guard let file = path(url) else { throw .fileSystem("the segment \(url) is missing from the cache") }
        let fd = try FileIO.open(file, O_RDONLY)
        defer { close(fd) }
        let size = FileIO.size(of: file) ?? 0
        let offset = range?.offset ?? 0
        let length = range?.length ?? size
        guard offset >= 0, offset + length <= size else {
            throw .badResponse("the byte range \(length)@\(offset) lies past the end of \(url) (\(size) bytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw FileIO.error("pread", file) }
            done += count
        }
        return bytes
    }
}

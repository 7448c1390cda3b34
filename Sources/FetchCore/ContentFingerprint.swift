import CGLib
import Glibc

/// A short name for what a file holds, to cache things made from it (a library thumbnail): the
/// SHA-256 of its length, its first and its last 64 KiB. The same video under another name or
/// path has the same fingerprint, and a file rewritten in place gets a new one; it reads at most
/// 128 KiB whatever the size, so it is cheap enough for every row that scrolls into view.
public enum ContentFingerprint {
    /// Bytes read from each end.
    static let window = 64 << 10

    /// The fingerprint in hex, or nil when `path` is not a regular file that can be read.
    public static func of(path: String) -> String? {
        guard let fd = try? FileIO.open(path, O_RDONLY) else { return nil }
        defer { FileIO.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int64(info.st_size)
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { return nil }
        defer { g_checksum_free(checksum) }
        var length = size.littleEndian
        withUnsafeBytes(of: &length) { g_checksum_update(checksum, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
        var buffer = [UInt8](repeating: 0, count: window)
        for offset in Set([Int64(0), max(0, size - Int64(window))]).sorted() {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, window, off_t(offset)) }
            guard count >= 0 else { return nil }
            g_checksum_update(checksum, buffer, gssize(count))
        }
        return String(cString: g_checksum_get_string(checksum))
    }
}

import CGLib
import Glibc

/// The SHA-256 of `bytes` as 64 lowercase hex digits, computed by GLib.
public func sha256Hex(of bytes: [UInt8]) -> String {
    let digest = bytes.withUnsafeBufferPointer {
        g_compute_checksum_for_data(G_CHECKSUM_SHA256, $0.baseAddress, gsize($0.count))!
    }
    defer { g_free(digest) }
    return String(cString: digest)
}

/// The SHA-256 of the file at `path`, read in pieces so large benchmark files are never held
/// in memory at once.
public func sha256Hex(ofFile path: String) throws -> String {
    let fd = try systemCall("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
    defer { close(fd) }
    let checksum = g_checksum_new(G_CHECKSUM_SHA256)!
    defer { g_checksum_free(checksum) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = try systemCall("read \(path)") { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
        if count == 0 { break }
        buffer.withUnsafeBufferPointer { g_checksum_update(checksum, $0.baseAddress, gssize(count)) }
    }
    return String(cString: g_checksum_get_string(checksum))
}

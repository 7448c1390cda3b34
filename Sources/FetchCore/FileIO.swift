import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one place where a failing system call on the cache becomes a `DownloadError`.
///
/// Like swift-nio's `System.swift`: every call retries `EINTR`, and `ENOSPC`/`EDQUOT` always
/// become `.diskFull` so the download pauses with its partial intact.
enum FileIO {
    static func error(_ call: String, _ path: String, errno code: Int32 = errno) -> DownloadError {
        if code == ENOSPC || code == EDQUOT { return .diskFull }
        return .fileSystem("\(call) \(path): \(String(cString: strerror(code)))")
    }

    /// Runs a system call, retrying on EINTR, and throws on -1.
    @discardableResult
    static func call(_ name: String, _ path: String, _ body: () -> Int) throws(DownloadError) -> Int {
        while true {
            let result = body()
            if result != -1 { return result }
            if errno == EINTR { continue }
            throw error(name, path)
        }
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(DownloadError) -> Int32 {
        Int32(try call("open", path) { Int(Glibc.open(path, flags | O_CLOEXEC, mode)) })
    }

    /// Writes all of `buffer` at the file's current position.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(DownloadError) {
        var done = 0
        while done < buffer.count {
            done += try call("write", path) { Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done) }
        }
    }

    static func dataSync(_ fd: Int32, path: String) throws(DownloadError) {
        try call("fdatasync", path) { Int(fdatasync(fd)) }
    }

    static func truncate(_ fd: Int32, to length: Int64, path: String) throws(DownloadError) {
        try call("ftruncate", path) { Int(ftruncate(fd, off_t(length))) }
    }

    static func seek(_ fd: Int32, to offset: Int64, path: String) throws(DownloadError) {
        try call("lseek", path) { Int(lseek(fd, off_t(offset), SEEK_SET)) }
    }

    static func rename(_ from: String, _ to: String) throws(DownloadError) {
        try call("rename", to) { Int(Glibc.rename(from, to)) }
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Makes a rename or a new file in `directory` survive a power cut.
    static func syncDirectory(_ directory: String) throws(DownloadError) {
        let fd = try open(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try call("fsync", directory) { Int(fsync(fd)) }
    }

    /// Writes `contents` to a temporary file, syncs it, renames it over `path`, syncs the folder.
    static func replaceAtomically(path: String, contents: Data) throws(DownloadError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        do {
            try contents.withUnsafeBytes { try writeAll(fd, $0, path: temporary) }
            try dataSync(fd, path: temporary)
            close(fd)
            try rename(temporary, path)
        } catch {
            close(fd)
            remove(temporary)
            throw error as? DownloadError ?? .fileSystem("\(temporary): \(error)")
        }
        try syncDirectory((path as NSString).deletingLastPathComponent)
    }

    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func modificationDate(of path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
    }
}

/// Messages for the log (stderr), never for people in the window.
enum Log {
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("fetchplay: warning: \(message)\n".utf8))
    }
}

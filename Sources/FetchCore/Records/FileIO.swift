import Foundation
import GLibSupport
import Localization
#if canImport(Glibc)
import Glibc
#endif

/// The one place where a failing system call on the cache becomes a `DownloadError`.
///
/// Like swift-nio's `System.swift`: every call retries `EINTR`, and `ENOSPC`/`EDQUOT` always
/// become `.diskFull` so the download pauses with its partial intact.
///
/// Every file Fetchplay opens in its folders is opened here, with `O_NOFOLLOW`, and must be a
/// regular file: a symlink or a device planted where a partial, record, lock or video should
/// be is never written (or read) through.
///
/// The cache is its owner's alone: folders are made 0700 and files 0600 here, with explicit
/// modes rather than the umask, because partials, records and contexts name links (a query may
/// hold a token) and carry cookies. A small file another user owns, or one in a folder others
/// can change, is never read (`readSmallFile`): it may have been planted. The window keeps its
/// own files in the cache (thumbnails, playback positions) through the same calls.
public enum FileIO {
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

    /// Opens a regular file of Fetchplay's own, never through a symlink.
    ///
    /// With `O_CREAT`, a symlink (or another non-regular file) where the file should be is
    /// removed first and the file created anew with `O_EXCL`, so the link's target is never
    /// touched. Without `O_CREAT` such a file is refused. `O_NONBLOCK` keeps a planted FIFO
    /// from hanging the open; it has no effect on regular files.
    ///
    /// A file is created with `mode`, the owner's alone unless a caller says otherwise; with
    /// `O_CREAT`, one of ours that an older version left looser (0644) is tightened to `mode`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(DownloadError) -> Int32 {
        let safe = flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd: Int32
        repeat { fd = Glibc.open(path, safe, mode) } while fd == -1 && errno == EINTR
        if fd == -1 {
            let code = errno
            // ELOOP: a symlink; EISDIR: a folder; ENXIO: a socket.
            guard flags & O_CREAT != 0, code == ELOOP || code == EISDIR || code == ENXIO else {
                throw error("open", path, errno: code)
            }
        } else if isRegular(fd) {
            if flags & O_CREAT != 0 { tighten(fd, to: mode, path: path) }
            return fd
        } else {
            close(fd)
            guard flags & O_CREAT != 0 else { throw .fileSystem(String(format: tr("%1$@ is not a regular file"), path)) }
        }
        try replaceForeignFile(path)
        fd = Int32(try call("open", path) { Int(Glibc.open(path, safe | O_EXCL, mode)) })
        guard isRegular(fd) else {
            close(fd)
            throw .fileSystem(String(format: tr("%1$@ is not a regular file"), path))
        }
        return fd
    }

    /// Removes what stands where a file of Fetchplay's should be (a symlink itself, not its
    /// target; an empty folder), or refuses.
    private static func replaceForeignFile(_ path: String) throws(DownloadError) {
        Log.warning("\(path) is not a regular file of Fetchplay's; replacing it")
        if unlink(path) == 0 || errno == ENOENT { return }
        if errno == EISDIR, rmdir(path) == 0 { return }
        throw .fileSystem(String(format: tr("%1$@ is not a regular file and cannot be replaced"), path))
    }

    /// Whether `path` still names the file open at `fd` (not removed or replaced since).
    static func isSameFile(_ fd: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        return fstat(fd, &open) == 0 && lstat(path, &named) == 0
            && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private static func isRegular(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Takes from the file or folder open at `fd` every permission bit `mode` lacks, when it is
    /// ours (another user's is left alone: we may not, and it is not trusted anyway).
    private static func tighten(_ fd: Int32, to mode: mode_t, path: String) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o7777 & ~mode != 0 else { return }
        if fchmod(fd, info.st_mode & 0o7777 & mode) != 0 {
            Log.warning("could not make \(path) its owner's alone: \(String(cString: strerror(errno)))")
        }
    }

    /// Creates `directory` (and missing folders above it) as its owner's alone, 0700, and
    /// tightens it to 0700 when it already exists and is ours.
    ///
    /// - Parameter followingLink: whether `directory` itself may be a symlink to a folder (the
    ///   cache root a person chose); folders inside the cache never are.
    public static func makePrivateFolder(_ directory: String, followingLink: Bool = false) throws(DownloadError) {
        var missing: [String] = []
        var folder = directory
        while !folder.isEmpty, folder != "/", mkdir(folder, 0o700) != 0 {
            if errno == EEXIST { break }
            guard errno == ENOENT else { throw error("mkdir", folder) }
            missing.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        // Those above were missing: made now, from the top down.
        for folder in missing.reversed() where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw error("mkdir", folder)
        }
        let fd = Int32(try call("open", directory) {
            Int(Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)))
        })
        defer { close(fd) }
        // mkdir's mode passes through the umask; what a folder may be is said here, not there.
        tighten(fd, to: 0o700, path: directory)
    }

    /// Gives a finished video the modes of a person's file (0644): it leaves the cache for the
    /// videos folder, where people and their programs read it like any other.
    static func makeReadable(_ path: String) throws(DownloadError) {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        try call("fchmod", path) { Int(fchmod(fd, 0o644)) }
    }

    /// Why a small file of Fetchplay's open at `fd`, in the folder open at `folder`, may have
    /// been planted, or nil when it is trusted: it must be ours, in a folder of ours that no
    /// one else can change. Checked on the open descriptors, so nothing swaps the file between
    /// the check and the read.
    private static func distrust(_ fd: Int32, in folder: Int32) -> String? {
        var file = stat(), parent = stat()
        guard fstat(fd, &file) == 0, fstat(folder, &parent) == 0 else { return "it cannot be examined" }
        if file.st_uid != geteuid() { return "it belongs to user \(file.st_uid)" }
        if parent.st_uid != geteuid() { return "its folder belongs to user \(parent.st_uid)" }
        if parent.st_mode & 0o022 != 0 { return "other users can change its folder" }
        return nil
    }

    /// Opens a small file of Fetchplay's for reading when it is a regular file (not a symlink)
    /// and trusted (`distrust`); nil otherwise. A distrusted file is logged by path, never by
    /// its contents.
    private static func openTrusted(_ path: String) -> Int32? {
        let folderPath = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var folder: Int32
        repeat { folder = Glibc.open(folderPath.isEmpty ? "." : folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            while folder == -1 && errno == EINTR
        guard folder >= 0 else { return nil }
        defer { close(folder) }
        var fd: Int32
        repeat { fd = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) } while fd == -1 && errno == EINTR
        guard fd >= 0 else { return nil }
        guard isRegular(fd) else {
            close(fd)
            return nil
        }
        if let reason = distrust(fd, in: folder) {
            Log.warning("ignoring \(path): \(reason)")
            close(fd)
            return nil
        }
        return fd
    }

    /// Reads a small regular file of Fetchplay's (a record, a context, the settings) whole; nil
    /// when it is missing, a symlink, larger than `limit` bytes, or not trusted (another user's,
    /// or in a folder others can change: see `distrust`), which is as if it were not there.
    public static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> Data? {
        guard let fd = openTrusted(path) else { return nil }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            if data.count > limit { return nil }
        }
    }

    /// Writes all of `buffer` at the file's current position.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(DownloadError) {
        var done = 0
        while done < buffer.count {
            done += try call("write", path) { Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done) }
        }
    }

    /// Writes all of `buffer` at `offset`, whatever the file's position (`pwrite`).
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(DownloadError) {
        var done = 0
        while done < buffer.count {
            done += try call("pwrite", path) {
                pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
        }
    }

    /// Closes a descriptor exactly once. EBADF means this process closed it already (or never
    /// opened it): a bug that could close a reused number, so it stops the program, as in
    /// swift-nio. Other errors of close lose nothing here: every write that matters was synced.
    static func close(_ fd: Int32) {
        if Glibc.close(fd) != 0 {
            precondition(errno != EBADF, "close(\(fd)): a descriptor closed twice")
        }
    }

    /// Takes an exclusive `flock` without waiting: false when another holder has it.
    static func tryLock(_ fd: Int32, path: String) throws(DownloadError) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw error("flock", path)
        }
        return true
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

    /// Renames a regular file of Fetchplay's; a symlink is never moved into place. (A symlink
    /// at `to` is replaced by the rename itself, not followed.)
    static func rename(_ from: String, _ to: String) throws(DownloadError) {
        // A folder too (an HLS presentation's, moved whole to the trash); never a symlink.
        guard size(of: from) != nil || isDirectory(from) else {
            throw .fileSystem(String(format: tr("%1$@ is missing or not a regular file"), from))
        }
        try call("rename", to) { Int(Glibc.rename(from, to)) }
    }

    /// Moves the regular file `from` to `to`, never replacing anything there: false when `to`
    /// exists. A hard link cannot replace a file, so it is made first and `from` unlinked after;
    /// where links cannot be made (across file systems, on FAT), the bytes are copied into a
    /// file created with O_EXCL, synced, and only then is `from` removed.
    static func moveWithoutReplacing(_ from: String, to: String) throws(DownloadError) -> Bool {
        guard size(of: from) != nil else { throw .fileSystem("\(from) is missing or not a regular file") }
        while true {
            if Glibc.link(from, to) == 0 {
                remove(from)
                return true
            }
            switch errno {
            case EINTR: continue
            case EEXIST: return false
            case EXDEV:
                // Another file system: a synced copy beside `to` first, so a crash never leaves
                // half a video under the video's name; then the same move on one file system.
                let copy = (to as NSString).deletingLastPathComponent
                    + "/.fetchplay-copy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                try copyFile(from, to: copy)
                let moved: Bool
                do { moved = try moveWithoutReplacing(copy, to: to) } catch {
                    remove(copy)
                    throw error
                }
                if moved { remove(from) } else { remove(copy) }
                return moved
            case EPERM, EOPNOTSUPP, EMLINK:
                // No hard links here (FAT): copy under an O_EXCL name, which never overwrites.
                var info = stat()
                if lstat(to, &info) == 0 { return false }
                try copyFile(from, to: to)
                remove(from)
                return true
            default:
                throw error("link", to)
            }
        }
    }

    /// Copies a regular file into a new file `to` (created with O_EXCL, with the source's
    /// modes) and syncs it.
    private static func copyFile(_ from: String, to: String) throws(DownloadError) {
        let source = try open(from, O_RDONLY)
        defer { close(source) }
        var info = stat()
        try call("fstat", from) { Int(fstat(source, &info)) }
        let target = try open(to, O_WRONLY | O_CREAT | O_EXCL, mode: info.st_mode & 0o777)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: DownloadError?
        while failure == nil {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { failure = error("read", from); break }
            if count == 0 { break }
            let written = buffer.withUnsafeBytes { bytes in
                Result { () throws(DownloadError) in
                    try writeAll(target, UnsafeRawBufferPointer(rebasing: bytes[..<count]), path: to)
                }
            }
            if case .failure(let error) = written { failure = error }
        }
        if failure == nil {
            do { try dataSync(target, path: to) } catch { failure = error }
        }
        close(target)
        if let failure {
            remove(to)
            throw failure
        }
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Makes a rename or a new file in `directory` survive a power cut.
    static func syncDirectory(_ directory: String) throws(DownloadError) {
        let fd = Int32(try call("open", directory) {
            Int(Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        })
        defer { close(fd) }
        try call("fsync", directory) { Int(fsync(fd)) }
    }

    /// Writes `contents` to a new temporary file, syncs it, renames it over `path`, syncs the folder.
    /// Readable by its owner only: records name links (a query may hold a token), and a request
    /// context holds cookies.
    public static func replaceAtomically(path: String, contents: Data) throws(DownloadError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        // Closed exactly once, on every path: a second close could hit a reused descriptor.
        let written = contents.withUnsafeBytes { bytes in
            Result { () throws(DownloadError) in
                try writeAll(fd, bytes, path: temporary)
                try dataSync(fd, path: temporary)
            }
        }
        close(fd)
        if case .failure(let error) = written {
            remove(temporary)
            throw error
        }
        do {
            try rename(temporary, path)
        } catch {
            remove(temporary)
            throw error
        }
        try syncDirectory((path as NSString).deletingLastPathComponent)
    }

    /// The size of a regular file (never a symlink's target); nil for anything else.
    /// The names in `directory` (none when it cannot be read), from one `readdir` pass.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(cString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func size(of path: String) -> Int64? {
        regularFileInfo(path).map { Int64($0.st_size) }
    }

    static func modificationDate(of path: String) -> Date? {
        regularFileInfo(path).map { Date(timeIntervalSince1970: TimeInterval($0.st_mtim.tv_sec)) }
    }

    /// Whether `path` is a folder itself (not a symlink to one).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func regularFileInfo(_ path: String) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return info
    }

    /// Bytes a new file in `directory` may still take (for this user), or nil when unknown.
    static func availableBytes(in directory: String) -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(info.f_bavail).multipliedReportingOverflow(by: Int64(info.f_frsize))
        return overflow ? .max : bytes
    }
}

/// Messages for the log (stderr), never for people in the window: the player's and the
/// window's own log.
typealias Log = GLibSupport.Log

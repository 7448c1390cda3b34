import Glibc

/// The one-writer-per-URL lock: an exclusive `flock` on `partial/KEY.lock`, held for as long as
/// this value lives. A download holds it while it runs; deleting or restoring a video's files
/// takes it too, so neither can pull files from under a writer in this or another process.
final class PartialLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock, or throws `.busy` when another holder has it.
    init(cache: Cache, key: String) throws(DownloadError) {
        let path = cache.partialPath(key, "lock")
        let fd = try FileIO.open(path, O_RDWR | O_CREAT)
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            throw code == EWOULDBLOCK ? .busy : FileIO.error("flock", path, errno: code)
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

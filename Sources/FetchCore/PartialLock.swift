import Glibc

/// The one-writer-per-URL lock: an exclusive `flock` on `partial/KEY.lock`, held for as long as
/// this value lives. A download holds it while it runs; deleting or restoring a video's files
/// takes it too, so neither can pull files from under a writer in this or another process.
///
/// The file exists only while the lock is held: the holder removes it before letting go, so a
/// finished or deleted download leaves no `.lock` behind. A second process may have opened the
/// file just before it went and then win an `flock` on a name nobody can reach any more; so a
/// taker checks, once locked, that the path still names the file it holds, and tries again if not.
final class PartialLock: Sendable {
    private let descriptor: Int32
    private let path: String

    /// Takes the lock, or throws `.busy` when another holder has it.
    init(cache: Cache, key: String) throws(DownloadError) {
        path = cache.partialPath(key, "lock")
        // A handful of tries: each failure means another holder let go in between.
        for _ in 0..<8 {
            guard let fd = try Self.lockIfStillNamed(path) else { continue }
            descriptor = fd
            return
        }
        throw .busy
    }

    /// Opens and locks `path`; nil when the file was removed or replaced while it was locked.
    private static func lockIfStillNamed(_ path: String) throws(DownloadError) -> Int32? {
        let fd = try FileIO.open(path, O_RDWR | O_CREAT)
        let locked: Bool
        do {
            locked = try FileIO.tryLock(fd, path: path)
        } catch {
            FileIO.close(fd)
            throw error
        }
        guard locked else {
            FileIO.close(fd)
            throw .busy
        }
        guard FileIO.isSameFile(fd, path) else {
            FileIO.close(fd)
            return nil
        }
        return fd
    }

    deinit {
        // Removed while still held: nobody can take the lock on it in between.
        unlink(path)
        // Closing the descriptor releases the lock.
        FileIO.close(descriptor)
    }

    /// Removes `partial/KEY.lock` when nobody holds it: a lock file older versions left behind.
    /// Returns whether it went.
    static func removeIfUnheld(_ path: String) -> Bool {
        guard let fd = try? FileIO.open(path, O_RDONLY) else { return false }
        defer { FileIO.close(fd) }
        guard (try? FileIO.tryLock(fd, path: path)) == true, FileIO.isSameFile(fd, path) else { return false }
        return unlink(path) == 0
    }

    /// Whether a holder has `path` locked now (a download running in this or another process).
    static func isHeld(_ path: String) -> Bool {
        guard let fd = try? FileIO.open(path, O_RDONLY) else { return false }
        defer { FileIO.close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }
}

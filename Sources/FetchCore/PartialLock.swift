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
        descriptor = fd
    }

    deinit {
        // Closing the descriptor releases the lock.
        FileIO.close(descriptor)
    }
}

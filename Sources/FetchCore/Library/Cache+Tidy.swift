import Foundation
import Glibc

/// Leftovers a cache can hold from older versions or a crash, removed when the library starts.
///
/// Only what nobody can need: a `.lock` nobody holds (older versions left one per download), a
/// temporary file of an atomic write whose process is gone, and a request context whose partial
/// (a file's record, a presentation's folder, yt-dlp's folder) went (it holds secrets: it must not outlive its
/// download). Everything else that is not Fetchplay's stays, and is only named in the log
/// (`strayFiles`).
extension Cache {
    /// Removes the leftovers; returns how many went. One listing per folder.
    @discardableResult
    public func tidyLeftovers() -> Int {
        var removed = 0
        let partials = partialFolder()
        // A presentation's record is in its own folder (`hls/KEY/`), not beside the context, and
        // so is that of a download by yt-dlp (`sites/KEY/`).
        let folders = Set(FileIO.names(in: presentationsDirectory) + FileIO.names(in: sitesDirectory))
        for name in partials.names {
            let path = partialDirectory + "/" + name
            if name.hasSuffix(".lock") {
                if FileIO.size(of: path) != nil, PartialLock.removeIfUnheld(path) { removed += 1 }
            } else if name.utf8.count == 64 + 8, name.hasSuffix(".context") {
                // Kept while its record is there, and while a download writes its first checkpoint.
                let key = String(name.prefix(64))
                let kept = partials.contains(key + ".json") || folders.contains(key) || isBeingWritten(path)
                if !kept, unlink(path) == 0 { removed += 1 }
            } else if Self.isAbandonedTemporary(name), unlink(path) == 0 {
                removed += 1
            }
        }
        for directory in [root, videosDirectory, thumbnailsDirectory] {
            for name in FileIO.names(in: directory) where Self.isAbandonedTemporary(name) {
                if unlink(directory + "/" + name) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// `ROOT/thumbnails`: the library's thumbnails, named by their video's content (derived
    /// data: removing the folder only costs making them again).
    public var thumbnailsDirectory: String { root + "/thumbnails" }

    /// `NAME.tmp-PID-RANDOM` (`FileIO.replaceAtomically`) of a process that no longer runs.
    static func isAbandonedTemporary(_ name: String) -> Bool {
        guard let last = name.split(separator: ".").last, last.hasPrefix("tmp-") else { return false }
        let parts = last.dropFirst(4).split(separator: "-")
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, UInt32(parts[1]) != nil else { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}

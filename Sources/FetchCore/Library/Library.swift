import Foundation
import Localization
import ThreadKit

/// What people do to the videos in the cache folder: list them, delete with undo, remember when
/// they were played, keep the folder under a size cap.
///
/// It keeps no list: the folder is the truth, and whoever shows the videos (the window's
/// `DownloadStore`, `--list`) holds what `reload()` returned and changes it with each call's
/// result. Unreadable records and stray files are skipped and logged on stderr, never fatal.
/// Safe from any thread; every call touches the disk, so a window calls it off its main thread.
public final class Library: Sendable {
    public let cache: Cache
    /// Stray files already logged: each is reported once, not at every reload.
    private let reported = Locked<Set<String>>([])

    public init(cache: Cache) { self.cache = cache }

    /// Reads the cache folder; logs what it skips. Returns the items, newest first.
    ///
    /// - Parameter batch: called with the videos read so far while reading (not sorted), so a
    ///   window can show the first rows of a big library at once.
    @discardableResult
    public func reload(batch: (([LibraryItem]) -> Void)? = nil) -> [LibraryItem] {
        // One listing of partial/ serves both passes.
        let partials = cache.partialFolder()
        let items = cache.entries(partials: partials, batch: batch)
        let stray = cache.strayFiles(known: items, partials: partials)
        let fresh = reported.withLock { reported in stray.filter { reported.insert($0).inserted } }
        for path in fresh {
            Log.warning("skipping \(path): not a video or record Fetchplay wrote")
        }
        return items
    }

    // MARK: Facts about a video

    /// Records that `url` was played now; the size cap evicts the least recently played first.
    public func markPlayed(url: String, at date: Date = Date()) throws(DownloadError) {
        try cache.updateFinishedRecord(url: url) { $0.lastPlayed = date }
    }

    /// Stores the probed length of a finished video, so it is probed only once.
    public func setDuration(_ seconds: Double, url: String) throws(DownloadError) {
        guard seconds.isFinite, seconds > 0 else { return }
        try cache.updateFinishedRecord(url: url) { $0.duration = seconds }
    }

    /// Remembers where playback of `url` stopped (nil: start from the beginning next time).
    public func setPosition(_ seconds: Double?, url: String) throws(DownloadError) {
        let position = seconds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        try cache.updateFinishedRecord(url: url) { $0.position = position }
    }

    /// Remembers the speed, audio track and subtitles chosen for `url` (empty: none).
    public func setChoices(_ choices: PlaybackChoices, url: String) throws(DownloadError) {
        let kept = choices.isEmpty ? nil : choices
        try cache.updateFinishedRecord(url: url) { $0.choices = kept }
    }

    // MARK: Delete and undo

    /// Moves `url`'s video or partial and its record into the trash, from where `undo` puts them
    /// back exactly; `commit` (or `purgeTrash` at quit and start) removes them for good.
    ///
    /// - Parameter busy: URLs and paths in use (downloading, playing): those are refused.
    public func delete(url: String, busy: Set<String> = []) throws(LibraryError) -> Deletion {
        guard let item = cache.entry(for: url) else { throw .notFound }
        guard !busy.contains(url), !busy.contains(item.path) else { throw .inUse }
        // A writer in another window or process holds the lock while it downloads.
        let lock: PartialLock
        do { lock = try PartialLock(cache: cache, key: Cache.key(for: url)) } catch { throw .inUse }
        defer { withExtendedLifetime(lock) {} }
        let token = "\(Cache.key(for: url))-\(UInt32.random(in: 0...UInt32.max))"
        let folder = cache.trashDirectory + "/" + token
        var moves: [Deletion.Move] = []
        do {
            try FileIO.makePrivateFolder(folder)
            for (index, path) in cache.files(of: url).enumerated() where FileIO.size(of: path) != nil || FileIO.isDirectory(path) {
                // A video in the videos folder waits beside itself, hidden (a rename to the
                // cache's trash could cross file systems).
                let inCache = path.hasPrefix(cache.root + "/")
                let trashed = inCache ? "\(folder)/\(index)"
                    : (path as NSString).deletingLastPathComponent + "/.fetchplay-deleted-\(token)" + (index == 0 ? "" : "-\(index)")
                let move = Deletion.Move(original: path, trashed: trashed)
                try FileIO.rename(move.original, move.trashed)
                moves.append(move)
            }
        } catch {
            // Leave nothing half-deleted: put back what already moved.
            for move in moves.reversed() { try? FileIO.rename(move.trashed, move.original) }
            throw .fileSystem("\(error)")
        }
        return Deletion(url: url, folder: folder, moves: moves, item: item)
    }

    /// Puts a deletion's files back where they were: `deletion.item` is a video again.
    public func undo(_ deletion: Deletion) throws(LibraryError) {
        // Nothing may be writing this URL's files while they come back.
        let lock: PartialLock
        do { lock = try PartialLock(cache: cache, key: Cache.key(for: deletion.url)) } catch { throw .inUse }
        defer { withExtendedLifetime(lock) {} }
        if deletion.moves.contains(where: { FileIO.size(of: $0.original) != nil || FileIO.isDirectory($0.original) }) {
            // The same URL was downloaded again meanwhile: keep the new one.
            commit(deletion)
            throw .replaced
        }
        for move in deletion.moves {
            do { try FileIO.rename(move.trashed, move.original) } catch { throw .fileSystem(error.message) }
        }
        commit(deletion)
    }

    /// Removes a deletion's files for good.
    public func commit(_ deletion: Deletion) {
        for move in deletion.moves where !move.trashed.hasPrefix(deletion.folder + "/") { FileIO.remove(move.trashed) }
        try? FileManager.default.removeItem(atPath: deletion.folder)
        rmdir(cache.trashDirectory) // only when nothing else waits there
    }

    /// Removes everything in the trash: deletions nobody undid before quitting (or a crash).
    public func purgeTrash() {
        try? FileManager.default.removeItem(atPath: cache.trashDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.videoFolder)) ?? []
        for name in names where name.hasPrefix(".fetchplay-deleted-") { FileIO.remove(cache.videoFolder + "/" + name) }
    }

    // MARK: Size cap

    /// Removes the least recently played finished videos of `items` until they fit in `cap`
    /// bytes. Partials and anything in `protected` (URLs or paths) stay. Returns what was removed.
    @discardableResult
    public func evict(_ items: [LibraryItem], toFit cap: Int64, protected: Set<String> = []) -> [LibraryItem] {
        let victims = CacheEviction.victims(in: items, cap: cap, protected: protected)
        for victim in victims {
            for path in cache.files(of: victim.url) { FileIO.remove(path) }
            Log.warning("removed \(victim.displayName) (\(victim.url)) to keep the cache under \(cap) bytes")
        }
        if !victims.isEmpty { try? FileIO.syncDirectory(cache.videosDirectory) }
        return victims
    }
}

/// A deleted video waiting in the trash: what `Library.undo` needs to put it back.
public struct Deletion: Sendable, Equatable {
    public struct Move: Sendable, Equatable {
        public var original: String
        public var trashed: String
    }

    public var url: String
    var folder: String
    var moves: [Move]
    /// The item as it was listed, for the undo bar ("Deleted clip.webm").
    public var item: LibraryItem
}

/// Why the library could not do what was asked.
public enum LibraryError: Error, Sendable, Equatable {
    case notFound
    /// The video is downloading or playing.
    case inUse
    /// Undo found the same URL downloaded again since; the new copy stays.
    case replaced
    case fileSystem(String)

    /// One sentence a person can act on.
    public var message: String {
        switch self {
        case .notFound: tr("That video is no longer in the library.")
        case .inUse: tr("The video is downloading or playing; pause or stop it first.")
        case .replaced: tr("The video was downloaded again meanwhile; the new copy stays.")
        case .fileSystem(let detail): String(format: tr("The library could not change the cache folder: %1$@."), detail)
        }
    }
}

import FetchCore
import FetchViewModel
import Foundation
import ThreadKit

/// Where each video was left, so the next play can offer to resume. A video of the library
/// keeps its position in its own record (through `library`); a local file opened from elsewhere
/// in `<cache>/positions.json`, keyed by its path; a video watched while it downloads (it has
/// no file of its own yet) there too, keyed by its link's cache key (`link:KEY`: a link may
/// carry a token), until its file takes the position over.
///
/// The file is read once, on the positions' own worker as soon as they are made (a few hundred
/// bytes, long read by the first play); writes go to the same worker as a snapshot of the whole
/// table, written to a temporary file and renamed, so the main thread does no disk work and a
/// crash never leaves half a file. The process's shutdown joins the worker in its `.records`
/// stage, after the last position saved as playback stopped.
@MainActor
public final class PlaybackPositions {
    /// Seconds: positions closer than this to either end are not worth resuming.
    public nonisolated static let margin = 3.0

    public let file: String
    private var table: [String: Double]?
    private let writer = Worker(name: "fetchplay positions", stage: .records)
    /// The table as the worker read it from the file, until `table` takes it.
    private let read = Locked<[String: Double]?>(nil)

    /// The library whose videos keep their positions in their records; nil: none.
    let library: DownloadStore?

    public init(file: String, library: DownloadStore? = nil) {
        self.file = file
        self.library = library
        writer.submit { [read] in
            let data = FileIO.readSmallFile(file, limit: 16 << 20)
            let table = data.flatMap { try? JSONDecoder().decode([String: Double].self, from: $0) } ?? [:]
            read.withLock { $0 = table }
        }
    }

    /// `<root>/positions.json`.
    public convenience init(cacheRoot: String, library: DownloadStore? = nil) {
        self.init(file: (cacheRoot as NSString).appendingPathComponent("positions.json"), library: library)
    }

    /// The library's video at `path`, if it is one.
    private func libraryItem(_ path: String) -> LibraryItem? {
        library?.items.first { $0.isComplete && $0.path == path }
    }

    /// Whether a position is worth offering next time: past the first seconds, before the end.
    public nonisolated static func isWorthResuming(_ position: Double, duration: Double?) -> Bool {
        guard position.isFinite, position >= margin else { return false }
        guard let duration, duration > 0 else { return true }
        return position <= duration - margin
    }

    /// The remembered position of `path` in seconds, if any: a library video's own, else where
    /// it was left while it downloaded.
    public func position(for path: String) -> Double? {
        if let item = libraryItem(path) { return item.position ?? loaded[Self.key(link: item.url)] }
        return loaded[path]
    }

    /// Where the video still downloading from `url` was left, if it is worth resuming.
    public func position(link url: String) -> Double? { loaded[Self.key(link: url)] }

    /// Remembers `position` for the video still downloading from `url`.
    public func remember(_ position: Double?, duration: Double?, link url: String) {
        store(position, duration: duration, key: Self.key(link: url))
    }

    private static func key(link url: String) -> String { "link:" + Cache.key(for: url) }

    /// Remembers `position` for `path`, or forgets it when it is not worth resuming.
    public func remember(_ position: Double?, duration: Double?, for path: String) {
        if let item = libraryItem(path) {
            let value = position.flatMap { Self.isWorthResuming($0, duration: duration) ? $0 : nil }
            // The file has the position now: the one kept while it downloaded is over.
            store(nil, duration: nil, key: Self.key(link: item.url))
            return library?.setPosition(value.map(Self.tenths), url: item.url) ?? ()
        }
        store(position, duration: duration, key: path)
    }

    /// Whole tenths are plenty and keep the file stable between ticks of a paused video.
    private static func tenths(_ seconds: Double) -> Double { (seconds * 10).rounded(.down) / 10 }

    private func store(_ position: Double?, duration: Double?, key: String) {
        let rounded = position.flatMap { Self.isWorthResuming($0, duration: duration) ? Self.tenths($0) : nil }
        var table = loaded
        guard table[key] != rounded else { return }
        table[key] = rounded
        self.table = table
        save(table)
    }

    /// The choices remembered for the library's video at `path` (speed, audio, subtitles).
    public func choices(for path: String) -> PlaybackChoices {
        libraryItem(path)?.choices ?? PlaybackChoices()
    }

    /// Remembers `choices` for the library's video at `path`; other files keep none.
    public func remember(_ choices: PlaybackChoices, for path: String) {
        guard let item = libraryItem(path) else { return }
        library?.setChoices(choices, url: item.url)
    }

    public func forget(_ path: String) {
        remember(nil, duration: nil, for: path)
    }

    /// Blocks until every write asked for so far is on disk (tests). Quitting does not need it:
    /// the shutdown joins the worker after its last write.
    public func flush() {
        writer.flush()
        library?.flush()
    }

    /// The table, once the worker has read it (a play asked for before that waits for the read).
    private var loaded: [String: Double] {
        if let table { return table }
        if read.withLock({ $0 }) == nil { writer.flush() }
        let table = read.withLock { $0 } ?? [:]
        self.table = table
        return table
    }

    private func save(_ table: [String: Double]) {
        let file = self.file
        writer.submit {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let data = try? encoder.encode(table) else { return }
            // Atomic (written beside the file, then renamed over it) and its owner's alone: it
            // names the files a person watched.
            try? FileIO.replaceAtomically(path: file, contents: data)
        }
    }
}

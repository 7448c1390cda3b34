import FetchCore
import Foundation

/// One video or download as the store holds it, one per URL: the queue's entry, when there is
/// one, is the live truth (state and progress); the cache's item gives what only the disk knows
/// (name, date, duration, the finished file, a failure kept from before a restart).
///
/// The store decides here which of the two says what; the views only format it
/// (`LibraryRowModel`).
public struct StoredVideo: Sendable, Equatable {
    public enum Activity: Sendable, Equatable {
        case finished, downloading, waiting, paused, failed
    }

    public var url: String
    public var title: String
    public var activity: Activity
    /// Bytes on disk and the total; for a finished video, its size.
    public var progress: DownloadProgress
    /// The finished video's file.
    public var path: String?
    /// Seconds, once probed.
    public var duration: Double?
    /// When it finished; nil for one that finished here and is not listed yet (now).
    public var date: Date?
    /// Why it failed: the live error, else the one its record kept (after a restart).
    public var failure: String?

    public var isFinished: Bool { activity == .finished }

    /// The two sources of one URL made one: `entry` (the queue's) wins for state and progress.
    public init(item: LibraryItem?, entry: DownloadQueue.Entry?) {
        url = item?.url ?? entry?.url ?? ""
        // Not on disk yet: the name its page gave, which the download page shows too.
        title = item?.displayName ?? entry?.name ?? LinkTitle.of(url)
        duration = item?.duration
        date = item?.date
        if let entry, case .completed(let path) = entry.state {
            activity = .finished
            progress = DownloadProgress(bytesDone: entry.progress.total ?? entry.progress.bytesDone, total: entry.progress.total)
            self.path = path
            return
        }
        if entry == nil, let item, item.isComplete {
            activity = .finished
            progress = DownloadProgress(bytesDone: item.bytesDone, total: item.total)
            path = item.path
            return
        }
        // An entry not started yet knows the bytes only; the item knows an HLS partial's segments too.
        let notStarted = entry.map { $0.state == .idle && $0.progress.segments == nil } ?? true
        progress = (notStarted ? item?.progress : nil) ?? entry?.progress ?? DownloadProgress(bytesDone: 0, total: nil)
        failure = if case .failed(let error)? = entry?.state { error.message }
            else if entry == nil || entry?.state == .idle { item?.failure } else { nil }
        activity = switch entry?.state {
        case _ where failure != nil: .failed
        case .downloading?: .downloading
        case .failed?: .failed
        default: entry?.isWaiting == true ? .waiting : .paused
        }
    }

    /// One per URL, newest first: downloads only the queue knows (the newest added first), then
    /// the cache's items in their order. A link that failed with nothing downloaded is left out:
    /// there is nothing to continue or play.
    public static func all(items: [LibraryItem], entries: [DownloadQueue.Entry]) -> [StoredVideo] {
        let byURL = Dictionary(entries.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        let known = Set(items.map(\.url))
        let fresh = entries.reversed().filter { !known.contains($0.url) && !isEmptyFailure($0) }
        let fromDisk = items.filter { item in byURL[item.url].map { !isEmptyFailure($0) } ?? true }
        return fresh.map { StoredVideo(item: nil, entry: $0) } + fromDisk.map { StoredVideo(item: $0, entry: byURL[$0.url]) }
    }

    /// A failure before any byte was kept (a 404, a refused connection, a web page).
    static func isEmptyFailure(_ entry: DownloadQueue.Entry) -> Bool {
        entry.state.isFailed && entry.progress.bytesDone == 0
    }
}

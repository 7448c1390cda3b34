import FetchCore
import Foundation
import Localization

/// What one library row shows: a pure value formatted from the store's `StoredVideo`.
public struct LibraryRowModel: Sendable, Equatable, Identifiable {
    public typealias Activity = StoredVideo.Activity

    public var url: String
    public var title: String
    /// Size, duration and date for a video; amount and state for a partial.
    public var detail: String
    public var activity: Activity
    /// The small ring's fraction (nil when the total is unknown).
    public var fraction: Double?
    /// The finished video, to play and to take a thumbnail from.
    public var videoPath: String?
    public var hasDuration: Bool
    /// Bytes on disk (for the total).
    public var bytes: Int64

    public var id: String { url }
    public var isFinished: Bool { activity == .finished }
    /// Whether the row's button pauses it (downloading or waiting) rather than continues it.
    public var pauses: Bool { activity == .downloading || activity == .waiting }

    /// What the row's button does: Pause or Continue for a partial; nil for a finished video.
    public var toggleAction: FetchplayAction? { isFinished ? nil : pauses ? .pauseItem : .continueItem }

    /// The row's menu, in `FetchplayAction.rowMenu`'s order: Play for a finished video, Pause or
    /// Continue for a partial, and what every row offers.
    public var menuActions: [FetchplayAction] {
        FetchplayAction.rowMenu.filter { action in
            switch action {
            case .playItem: isFinished
            case .pauseItem, .continueItem: action == toggleAction
            default: true
            }
        }
    }

    /// One row per video, in the store's order but stable: rows already shown (`keeping`) stay
    /// where they are (pausing or finishing never moves a row under the pointer); new ones go
    /// where the fresh order puts them, after the shown row before them (downloads only the
    /// queue knows come first, so they go on top).
    ///
    /// - Parameter memo: rows from the last call: a library of thousands formats only the
    ///   videos that changed.
    public static func rows(videos: [StoredVideo], keeping order: [String] = [], now: Date = Date(),
                            memo: Memo? = nil) -> [LibraryRowModel] {
        memo?.startDay(of: now)
        let models = videos.map { video in memo?.row(of: video) { row(video, now: now) } ?? row(video, now: now) }
        guard !order.isEmpty else { return models }
        let position = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // A new row follows the shown row before it in the fresh order (the library read in
        // batches adds older rows under the ones shown, below the download that runs); a new
        // row with none before it (a download only the queue knows) goes on top.
        var top: [LibraryRowModel] = []
        var following: [String: [LibraryRowModel]] = [:]
        var anchor: String?
        for model in models {
            if position[model.url] != nil {
                anchor = model.url
            } else if let anchor {
                following[anchor, default: []].append(model)
            } else {
                top.append(model)
            }
        }
        let shown = models.filter { position[$0.url] != nil }.sorted { position[$0.url]! < position[$1.url]! }
        return top + shown.flatMap { [$0] + (following[$0.url] ?? []) }
    }

    /// Rows by URL, valid for one day ("Today" becomes "Yesterday").
    public final class Memo {
        private var rows: [String: (video: StoredVideo, row: LibraryRowModel)] = [:]
        private var day: Int?

        public init() {}

        func startDay(of now: Date) {
            let today = Calendar.current.ordinality(of: .day, in: .era, for: now)
            if today != day { rows.removeAll() }
            day = today
        }

        func row(of video: StoredVideo, make: () -> LibraryRowModel) -> LibraryRowModel {
            if let kept = rows[video.url], kept.video == video { return kept.row }
            let row = make()
            rows[video.url] = (video, row)
            return row
        }
    }

    /// The row of one video: its words and its small ring.
    public static func row(_ video: StoredVideo, now: Date = Date()) -> LibraryRowModel {
        let url = video.url, progress = video.progress
        if let path = video.path, video.isFinished {
            return finished(url: url, title: video.title, path: path, size: progress.bytesDone,
                            duration: video.duration, date: video.date ?? now, now: now)
        }
        let word = switch video.activity {
        case .downloading: tr("Downloading")
        case .waiting: tr("Waiting")
        case .failed: tr("Failed")
        default: progress.bytesDone > 0 ? tr("Paused") : tr("Not started")
        }
        let amount = progress.bytesDone > 0 || progress.total != nil ? StatusText.amount(progress) : nil
        let detail: String
        if video.activity == .downloading {
            // The ring already says it runs; the words say how fast and how long.
            var parts = [amount ?? word]
            if progress.bytesPerSecond > 0 {
                parts.append(String(format: tr("%1$@/s"), StatusText.size(Int64(progress.bytesPerSecond))))
            }
            if let left = progress.secondsLeft, progress.bytesPerSecond > 0 { parts.append(StatusText.timeLeft(left)) }
            detail = parts.joined(separator: " · ")
        } else if let failure = video.failure {
            detail = String(format: tr("Failed: %1$@"), failure)
        } else {
            detail = [word, amount].compactMap { $0 }.joined(separator: " — ")
        }
        return LibraryRowModel(url: url, title: video.title, detail: detail,
                               activity: video.activity, fraction: progress.fraction, videoPath: nil,
                               hasDuration: false, bytes: progress.bytesDone)
    }

    private static func finished(url: String, title: String, path: String, size: Int64, duration: Double?,
                                 date: Date, now: Date) -> LibraryRowModel {
        // Where it came from: the host of its link, which for a video found on a web page is the page's.
        let parts = [StatusText.size(size), duration.map(Self.duration), Self.date(date, now: now),
                     url.isEmpty ? nil : WebAddress.host(of: url)].compactMap { $0 }
        return LibraryRowModel(url: url, title: title, detail: parts.joined(separator: " · "),
                               activity: .finished, fraction: 1, videoPath: path, hasDuration: duration != nil,
                               bytes: size)
    }

    /// The line under the library's title: "2 videos, 1 unfinished · 45 MB".
    public static func summary(_ rows: [LibraryRowModel]) -> String {
        let finished = rows.filter(\.isFinished).count, partial = rows.count - finished
        let size = StatusText.size(rows.reduce(0) { $0 + $1.bytes })
        let videos = String(format: trn("%1$d video", "%1$d videos", finished), finished)
        let unfinished = String(format: trn("%1$d unfinished", "%1$d unfinished", partial), partial)
        switch (finished > 0 || partial == 0, partial > 0) {
        // TRANSLATORS: the library's summary: "2 videos, 1 unfinished · 45 MB".
        case (true, true): return String(format: tr("%1$@, %2$@ · %3$@"), videos, unfinished, size)
        case (true, false): return String(format: tr("%1$@ · %2$@"), videos, size)
        default: return String(format: tr("%1$@ · %2$@"), unfinished, size)
        }
    }

    /// "0:42", "3:05", "1:02:03".
    public static func duration(_ seconds: Double) -> String {
        PlaybackTime.string(Double(TimeFormat.wholeSeconds(seconds)))
    }

    /// "Today", "Yesterday", else the local medium date ("5 Mar 2025").
    public static func date(_ date: Date, now: Date) -> String {
        let calendar = Calendar.current
        if calendar.isDate(date, inSameDayAs: now) { return tr("Today") }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: now),
           calendar.isDate(date, inSameDayAs: yesterday) { return tr("Yesterday") }
        return mediumDate.string(from: date)
    }

    /// Made once: a formatter costs more to make than a library of thousands takes to list.
    nonisolated(unsafe) private static let mediumDate: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateStyle = .medium
        formatter.timeStyle = .none
        return formatter
    }()
}

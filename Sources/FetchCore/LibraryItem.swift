import Foundation

/// One video in the library: finished and ready to play, or partial and ready to continue.
///
/// A value read from the cache folder (`Library.reload()`); the download queue's live progress
/// is layered on top of it by the window, not stored here.
public struct LibraryItem: Sendable, Equatable, Identifiable {
    /// The URL the person entered; it identifies the item (the cache key is its hash).
    public var url: String
    /// A name for people; never a path.
    public var displayName: String
    public var isComplete: Bool
    /// Bytes on disk: the whole video, or the partial's durable bytes.
    public var bytesDone: Int64
    /// The video's length in bytes, when known.
    public var total: Int64?
    /// The finished video, or the partial file.
    public var path: String
    /// When it finished downloading (a partial: when it last changed).
    public var date: Date
    /// Seconds, once probed; nil for partials and videos not probed yet.
    public var duration: Double?
    public var lastPlayed: Date?
    /// Where playback stopped last time, in seconds (finished videos).
    public var position: Double?
    /// Speed, audio track and subtitles chosen last time (finished videos).
    public var choices: PlaybackChoices?
    /// Why the last run of this partial failed, as people saw it; nil unless it failed.
    public var failure: String?
    /// Finished once, but its file is gone (renamed, moved or deleted outside Fetchplay): the
    /// library offers to download it again or to remove it.
    public var isMissing = false
    /// An unfinished HLS presentation: how far its segments are (its bytes have no total).
    public var segments: SegmentProgress?

    public var id: String { url }

    public init(url: String, displayName: String, isComplete: Bool, bytesDone: Int64, total: Int64?,
                path: String, date: Date, duration: Double? = nil, lastPlayed: Date? = nil,
                position: Double? = nil, failure: String? = nil) {
        self.url = url
        self.displayName = displayName
        self.isComplete = isComplete
        self.bytesDone = bytesDone
        self.total = total
        self.path = path
        self.date = date
        self.duration = duration
        self.lastPlayed = lastPlayed
        self.position = position
        self.failure = failure
    }

    /// The item a record describes, with what is on disk for it.
    init(record: DownloadRecord, isComplete: Bool, bytesDone: Int64, path: String) {
        self.init(url: record.url, displayName: record.displayName, isComplete: isComplete,
                  bytesDone: bytesDone, total: record.total, path: path,
                  date: record.completed ?? FileIO.modificationDate(of: path) ?? record.created,
                  duration: record.duration, lastPlayed: record.lastPlayed,
                  position: isComplete ? record.position : nil, failure: isComplete ? nil : record.failure)
        if isComplete { choices = record.choices }
    }

    /// How far a partial is, 0…1; 1 for a finished video; nil when the total is unknown.
    public var fraction: Double? {
        if isComplete { return 1 }
        return progress.fraction
    }

    /// What is on disk, as a download's progress.
    public var progress: DownloadProgress {
        DownloadProgress(bytesDone: bytesDone, total: total, segments: isComplete ? nil : segments)
    }

    /// The library's order, newest first: by date, then by link, so two videos finished in the
    /// same second (dates are kept in whole seconds) list the same way in every reading.
    public func isListed(before other: LibraryItem) -> Bool {
        date != other.date ? date > other.date : url < other.url
    }

    /// When it was last of use to someone: played, else downloaded. The size cap evicts the oldest.
    public var lastUsed: Date { lastPlayed ?? date }
}

/// Where one download stands.
public enum DownloadState: Sendable, Equatable {
    /// Nothing is running; nothing or a partial may be on disk.
    case idle
    case downloading
    /// Stopped by the user; the partial is kept and can be continued.
    case paused
    /// Stopped by an error after the automatic retries; a partial, if any, is kept.
    case failed(DownloadError)
    /// The whole file is in the cache at `path`.
    case completed(path: String)

    /// True when Continue makes sense: a stopped task whose partial can be resumed or retried.
    public var canContinue: Bool {
        switch self {
        case .paused, .failed: true
        default: false
        }
    }
}

/// How far one download is.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the file on disk so far.
    public var bytesDone: Int64
    /// The file's length, when the server told it.
    public var total: Int64?
    /// Bytes per second, averaged over the last few seconds.
    public var bytesPerSecond: Double
    /// Seconds until done at the current speed, when both are known.
    public var secondsLeft: Double?
    /// An HLS presentation's segments: how many are on disk, of how many, and the seconds of
    /// video they hold. Nil for a plain file.
    public var segments: SegmentProgress?

    public init(bytesDone: Int64, total: Int64?, bytesPerSecond: Double = 0, secondsLeft: Double? = nil,
                segments: SegmentProgress? = nil) {
        self.bytesDone = bytesDone
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.secondsLeft = secondsLeft
        self.segments = segments
    }

    /// 0…1, or nil when the total is unknown. For HLS, the seconds of video done of the total
    /// (segments' byte sizes are not known before they are fetched).
    public var fraction: Double? {
        if let segments { return segments.fraction }
        guard let total, total > 0 else { return total == 0 ? 1 : nil }
        return min(1, Double(bytesDone) / Double(total))
    }
}

/// How far an HLS presentation's segments are.
public struct SegmentProgress: Sendable, Equatable {
    public var done: Int
    public var count: Int
    /// Seconds of video in the finished segments, and in all of them.
    public var secondsDone: Double
    public var secondsTotal: Double

    public init(done: Int, count: Int, secondsDone: Double, secondsTotal: Double) {
        self.done = done
        self.count = count
        self.secondsDone = secondsDone
        self.secondsTotal = secondsTotal
    }

    public var fraction: Double {
        guard secondsTotal > 0 else { return count > 0 ? Double(done) / Double(count) : 1 }
        return min(1, secondsDone / secondsTotal)
    }
}

/// What a download's worker tells its store (`DownloadQueue`), on the worker's thread.
public enum DownloadEvent: Sendable, Equatable {
    case state(DownloadState)
    case progress(DownloadProgress)
    /// The media link of a download found on a web page stopped working (401, 403, 404 or 410:
    /// an expired token), and the page, read again, gave a fresh one, with which it goes on.
    case linkRefreshed
    /// What the download is called now that its web page said (the page's or the video's title).
    case named(String)
}

/// Which bytes of a download are on disk now, as a window shows them: the seek bar's downloaded
/// parts, and whether the video can start playing before it is complete.
public struct DownloadCoverage: Sendable, Equatable {
    /// Sorted, disjoint byte ranges on disk.
    public let spans: [Range<Int64>]
    /// The whole length, when known.
    public let total: Int64?
    /// Bytes may still arrive (a worker runs).
    public let isRunning: Bool

    /// Bytes a demuxer reads before it knows the streams (a WebM's or an MP4's headers and first
    /// clusters fit well inside): below this, Play would only show a spinner. A small file needs
    /// less: a twentieth of it, but never under `smallestStart`.
    public static let playableStart: Int64 = 256 * 1024
    public static let smallestStart: Int64 = 64 * 1024

    /// How much of the start must be on disk before Play is offered, for a file of `total` bytes.
    public static func neededStart(total: Int64) -> Int64 {
        min(total, playableStart, max(smallestStart, total / 20))
    }

    public init(spans: [Range<Int64>], total: Int64?, isRunning: Bool) {
        self.spans = spans
        self.total = total
        self.isRunning = isRunning
    }

    /// The file's start is on disk (`neededStart`). The length must be known, so that the player
    /// can seek in it.
    public var canStartPlaying: Bool {
        guard let total, total > 0, let first = spans.first, first.lowerBound == 0 else { return false }
        return first.upperBound >= Self.neededStart(total: total)
    }

    /// The spans as fractions of the whole (0…1), for drawing; empty when the length is unknown.
    public var fractions: [ClosedRange<Double>] {
        guard let total, total > 0 else { return [] }
        return spans.map { Double($0.lowerBound) / Double(total)...Double($0.upperBound) / Double(total) }
    }
}

extension DownloadBoard {
    /// What is on disk at this moment.
    public var coverage: DownloadCoverage {
        let now = current
        return DownloadCoverage(spans: now.ranges.ranges, total: now.total, isRunning: now.isRunning)
    }
}

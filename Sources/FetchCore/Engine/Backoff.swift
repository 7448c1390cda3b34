import ThreadKit
/// The pause before the next try after a failure: `initialBackoff` first, doubled at each
/// failure up to `maxBackoff` (`DownloadOptions`), back to the first after progress. Every retry
/// of the engine waits by it: a file's attempts, a connection's range, a segment, a playlist.
struct Backoff {
    private let first: Double
    private let limit: Double
    /// The pause the next try waits.
    private(set) var seconds: Double

    init(_ options: DownloadOptions) {
        first = options.initialBackoff
        limit = options.maxBackoff
        seconds = first
    }

    /// This pause, and the next one doubled.
    mutating func take() -> Double {
        defer { seconds = min(seconds * 2, limit) }
        return seconds
    }

    /// Waits this pause on `stop`; true when it was raised meanwhile.
    mutating func wait(on stop: StopSignal) -> Bool { stop.wait(seconds: take()) }

    /// Progress was made: the next failure waits the first pause again.
    mutating func reset() { seconds = first }
}

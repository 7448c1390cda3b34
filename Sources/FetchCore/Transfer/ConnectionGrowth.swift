/// Whether a download opens more connections, decided from its total rate per interval.
///
/// A split download starts with `startCount` connections at once (never worse than the fixed
/// four it had before), then doubles them while the last ones added raised the total rate by at
/// least half a connection's share each: many hosts limit each connection (nginx `limit_rate`,
/// CDNs), and there each connection added brings its share, up to the ceiling. Doubling, not
/// one at a time: a step needs a second of measuring (a server counting in whole seconds), and
/// one at a time reached eight after five seconds, when a 64 MiB file was nearly done.
///
/// Where one connection already fills the line, a file it brings within
/// `RangeDownload.worthSeconds` is never split (the download stays at one); a longer one starts
/// with four, the next four bring nothing, and growing stops there for good.
///
/// Pure: the caller measures the rate over intervals long enough for a server that counts in
/// whole seconds (and leaves out a new connection's first burst), opens the connections, and
/// says when growing must stop for good (a server refusing ranges, a connection failing).
struct ConnectionGrowth: Equatable, Sendable {
    enum Decision: Equatable, Sendable {
        /// Open this many more connections.
        case open(Int)
        case hold
    }

    /// The most connections at once (1...16).
    let ceiling: Int
    /// Connections the download should have now; grows with each `.open`.
    private(set) var target: Int
    /// Growing is over: the last connections added brought too little, or `stop()` was called.
    private(set) var settled = false
    /// The total rate (bytes per second) over the interval before the last connections opened,
    /// and how many there were then.
    private var before: Measure?

    private struct Measure: Equatable, Sendable {
        var rate: Double
        var count: Int
    }

    /// Connections a split download opens at once.
    static let startCount = 4
    /// Part of one connection's share (the rate before, divided by the connections then) by
    /// which the total must rise for each one added, for the next step: below it the line, not a
    /// limit per connection, holds the rate. Half a share: 50 % from 4 to 8, 50 % from 8 to 16.
    static let shareNeeded = 0.5

    init(ceiling: Int, start: Int = startCount) {
        self.ceiling = min(16, max(1, ceiling))
        target = min(self.ceiling, max(1, start))
    }

    /// Whether a rate has been measured since the start: the first doubling needs no
    /// comparison (nothing was measured before it), so its interval may be shorter.
    var hasMeasured: Bool { before != nil }

    /// Never grows again: the server refused a range, or a connection failed or is retried.
    mutating func stop() { settled = true }

    /// One interval's total rate in bytes per second; `canSplit`: a slice is still large enough
    /// to be shared with one more connection.
    mutating func measured(rate: Double, canSplit: Bool) -> Decision {
        guard !settled, target < ceiling else { return .hold }
        if let before {
            let share = before.rate / Double(max(1, before.count))
            let added = Double(target - before.count)
            guard rate >= before.rate + added * share * Self.shareNeeded, rate > 0 else {
                settled = true
                return .hold
            }
        }
        // Small slices: wait, a connection that finishes may leave a larger one to share.
        guard canSplit else { return .hold }
        before = Measure(rate: rate, count: target)
        let more = min(target, ceiling - target)
        target += more
        return .open(more)
    }
}

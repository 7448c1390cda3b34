/// Whether a download opens one more connection, decided from its total rate per interval.
///
/// A split download starts with `startCount` connections at once (never worse than the fixed
/// four it had before), then tries one more at a time while the last one added raised the total
/// rate by at least half a connection's share: many hosts limit each connection (nginx
/// `limit_rate`, CDNs), and there each connection added brings its share, up to the ceiling.
///
/// Where one connection already fills the line, a file it brings within
/// `RangeDownload.worthSeconds` is never split (the download stays at one); a longer one starts
/// with four, the fifth brings nothing, and growing stops there for good.
///
/// Pure: the caller measures the rate over intervals long enough for a server that counts in
/// whole seconds (and leaves out a new connection's first burst), opens the connections, and
/// says when growing must stop for good (a server refusing ranges, a connection failing).
struct ConnectionGrowth: Equatable, Sendable {
    enum Decision: Equatable, Sendable { case openOne, hold }

    /// The most connections at once (1...16).
    let ceiling: Int
    /// Connections the download should have now; grows by one with each `.openOne`.
    private(set) var target: Int
    /// Growing is over: the last connection added brought too little, or `stop()` was called.
    private(set) var settled = false
    /// The total rate (bytes per second) over the interval before the last connection opened.
    private var rateBefore: Double?

    /// Connections a split download opens at once.
    static let startCount = 4
    /// Part of one connection's share (the rate before, divided by the connections then) by
    /// which the total must rise after one was added for the next: below it the line, not a
    /// limit per connection, holds the rate. Half a share: 8 % from 7 to 8, 12.5 % from 4 to 5.
    static let shareNeeded = 0.5

    init(ceiling: Int, start: Int = startCount) {
        self.ceiling = min(16, max(1, ceiling))
        target = min(self.ceiling, max(1, start))
    }

    /// Never grows again: the server refused a range, or a connection failed or is retried.
    mutating func stop() { settled = true }

    /// One interval's total rate in bytes per second; `canSplit`: a slice is still large enough
    /// to be shared with one more connection.
    mutating func measured(rate: Double, canSplit: Bool) -> Decision {
        guard !settled, target < ceiling else { return .hold }
        if let rateBefore {
            let share = rateBefore / Double(max(1, target - 1))
            guard rate >= rateBefore + share * Self.shareNeeded, rate > 0 else {
                settled = true
                return .hold
            }
        }
        // Small slices: wait, a connection that finishes may leave a larger one to share.
        guard canSplit else { return .hold }
        rateBefore = rate
        target += 1
        return .openOne
    }
}

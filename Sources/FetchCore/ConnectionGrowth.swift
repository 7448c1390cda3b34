/// Whether a download opens one more connection, decided from its total rate per interval.
///
/// Many hosts limit each connection (nginx `limit_rate`, CDNs): there more connections bring
/// more, and one more is worth it while the last one added raised the total rate noticeably.
/// Where one connection already fills the line, another brings nothing and the count holds.
/// Pure: the caller measures, opens the connections and says when growing must stop for good
/// (a server refusing ranges, a connection failing).
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

    /// Fraction by which the total rate must rise after a connection was added for the next
    /// one: below it the line, not the server's limit per connection, is what holds the rate.
    static let noticeable = 0.15

    init(ceiling: Int, start: Int = 1) {
        self.ceiling = min(16, max(1, ceiling))
        target = min(self.ceiling, max(1, start))
    }

    /// Never grows again: the server refused a range, or a connection failed or is retried.
    mutating func stop() { settled = true }

    /// One interval's total rate in bytes per second; `canSplit`: a slice is still large enough
    /// to be shared with one more connection.
    mutating func measured(rate: Double, canSplit: Bool) -> Decision {
        guard !settled, target < ceiling else { return .hold }
        if let rateBefore, !(rate > rateBefore * (1 + Self.noticeable)) {
            settled = true
            return .hold
        }
        // Small slices: wait, a connection that finishes may leave a larger one to share.
        guard canSplit else { return .hold }
        rateBefore = rate
        target += 1
        return .openOne
    }
}

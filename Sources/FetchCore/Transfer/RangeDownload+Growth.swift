import Foundation

// How a split download decides to open more connections: the primary's speed over short
// windows (is the rest worth more connections?), then the total rate over whole intervals
// (`ConnectionGrowth`: did the last ones raise it?), with the constants both are measured by.
extension RangeDownload {
    /// Whether the rest of the file would still take `worthSeconds` at the primary's average
    /// speed since its first bytes (false before that spans `speedWatch`): a download about to
    /// end gains less from more connections than their requests cost it and the server.
    ///
    /// The average, not the speed of the last few milliseconds: a line one connection fills
    /// still stalls for a moment (another process on the CPU, packets a round trip apart), and
    /// an empty window read as a slow line split a file that came within a second
    /// (`ConnectionGrowthNginxTests` on a busy machine). A server limiting each connection is
    /// still found within a tenth of a second: its first burst (a second's worth) weighs less
    /// with every quiet millisecond after it.
    func worthMoreConnections(of primary: Transfer, total: Int64) -> Bool {
        guard let first = primary.firstBytesAt else { return false }
        let watched = monotonicSeconds() - first.time
        guard watched >= Self.speedWatch else { return false }
        let speed = Double(primary.next - first.offset) / watched
        let left = Double(total - partial.written.count)
        return speed <= 0 || left / speed >= Self.worthSeconds
    }

    /// Whether the primary's speed still decides if more connections open: before the first
    /// partition, for an answer that allows them and a primary that may fill the file alone.
    func speedDecides(_ primary: Transfer) -> Bool {
        !partitioned && maxConnections > 1 && !slicesRefused && primary.end == nil && primary.allowsSlices
    }

    /// Whether connections are still being added one by one.
    var growing: Bool { partitioned && growth.map { !$0.settled && $0.target < $0.ceiling } ?? false }

    /// Closes the interval the total rate is measured over once it spans `growthInterval`,
    /// and asks `growth` whether more connections open. The next interval starts
    /// `burstSeconds` after the last one opened, at the first look (one each `burstSeconds`)
    /// that finds every connection has had its first bytes: its first burst came with them.
    func watchGrowth(total: Int64?) {
        guard growing, let total else { return }
        let now = monotonicSeconds()
        guard now >= growthQuietUntil else { return }
        guard let window = growthWindow else {
            if active.contains(where: { !$0.gotBytes }) {
                growthQuietUntil = now + Self.burstSeconds
                return
            }
            growthWindow = (now, partial.length)
            return
        }
        let watched = now - window.start
        guard watched >= (growth?.hasMeasured == true ? Self.growthInterval : Self.firstGrowthInterval) else { return }
        let rate = Double(partial.length - window.length) / watched
        let canSplit = active.contains { $0.remaining(total: total) >= 2 * Self.minimumSlice }
        if case .open = growth?.measured(rate: rate, canSplit: canSplit) {
            growthWindow = nil
            growthQuietUntil = now + Self.burstSeconds
        } else {
            growthWindow = (now, partial.length)
        }
    }

    /// Seconds each interval of the total rate spans while connections are added. nginx's
    /// `limit_rate` counts in whole seconds and sends in chunks (measured with 0.1 s intervals:
    /// growth stopped at three, slower than four fixed), so an interval holds a second at least.
    static let growthInterval = 1.0
    /// Seconds of the first interval, after the four first connections: nothing is compared
    /// with it before the first doubling (it is the rate the next step is judged against), so
    /// half a second, one of nginx's 0.5 s sends for each connection, is enough.
    static let firstGrowthInterval = 0.5
    /// Seconds after connections open, and after the first bytes of each, before the total rate
    /// is measured again: a server's first burst comes with a connection's first bytes (nginx
    /// 1.22 with `limit_rate 4m` sends 2 MiB at once, then 2 MiB each 0.5 s: measured), and
    /// would read as growth.
    static let burstSeconds = 0.25
    /// Seconds the rest of the file must still take at one connection's speed before more open.
    static let worthSeconds = 2.0
    /// Seconds the primary's average speed must span before it decides, and the loop's longest
    /// wait while it may: short enough that connections to a server limiting each one open
    /// soon after the first. (nginx releases a limited connection's bytes at whole-second
    /// ticks: slices that started 20 ms after the first one sometimes fell into the next second
    /// and ended half a second later.)
    static let speedWatch = 0.005
    /// Bytes per connection below which another connection costs more than it brings.
    static let minimumSlice: Int64 = 2 << 20
    /// Bytes ahead of a connection that a reader may always want without a connection of its
    /// own (more when the connection brings more in half a second).
    static let nearEnough: Int64 = 64 << 10
}

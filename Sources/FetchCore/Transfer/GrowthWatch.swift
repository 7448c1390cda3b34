/// When a download with several connections opens more: `ConnectionGrowth`'s rule (double
/// while the last ones added raised the total rate by half a share each, up to the ceiling),
/// on the total rate measured over intervals. The one watch for a file's ranges
/// (`RangeDownload`) and a presentation's segments (`SegmentPool`): many hosts limit each
/// connection (nginx `limit_rate`, CDNs), and there each range or segment fetched beside the
/// others brings its share.
///
/// Pure: the caller counts the bytes, looks about every `burstSeconds` (a file's loop looks
/// each turn), and opens the connections this says. No rate is measured while the caller holds
/// back (a viewer waits for their pieces, a connection has no first bytes yet), nor in the first
/// moments of new connections: their first burst would read as growth.
struct GrowthWatch {
    private var growth: ConnectionGrowth
    /// Where the current interval started: when, and the bytes received by then.
    private var window: (start: Double, bytes: Int64)?
    /// No interval starts before this (monotonic seconds).
    private var quietUntil = 0.0

    init(start: Int = ConnectionGrowth.startCount, ceiling: Int) {
        growth = ConnectionGrowth(ceiling: ceiling, start: start)
    }

    /// Connections the download should have now.
    var target: Int { growth.target }

    /// Whether more connections may still open.
    var isGrowing: Bool { !growth.settled && growth.target < growth.ceiling }

    /// Never grows again: the server refused a range, or a connection failed.
    mutating func stop() { growth.stop() }

    /// Connections opened at `now` outside `look` (a file's first split): their first bursts are
    /// not measured.
    mutating func opened(at now: Double) {
        window = nil
        quietUntil = now + Self.burstSeconds
    }

    /// One look at `now` with `received` bytes so far: the connections to open now. `held`:
    /// nothing is measured, and the next interval starts a burst later; `canSplit`: the work
    /// left is enough for more connections (a slice large enough to share, a piece each).
    mutating func look(now: Double, received: Int64, held: Bool, canSplit: Bool) -> Int {
        guard isGrowing, now >= quietUntil else { return 0 }
        if held {
            opened(at: now)
            return 0
        }
        guard let window else {
            self.window = (now, received)
            return 0
        }
        let watched = now - window.start
        guard watched >= (growth.hasMeasured ? Self.interval : Self.firstInterval) else { return 0 }
        let rate = Double(received - window.bytes) / watched
        guard case .open(let more) = growth.measured(rate: rate, canSplit: canSplit) else {
            self.window = (now, received)
            return 0
        }
        opened(at: now)
        return more
    }

    /// Seconds each interval of the total rate spans while connections are added. nginx's
    /// `limit_rate` counts in whole seconds and sends in chunks (measured with 0.1 s intervals:
    /// growth stopped at three, slower than four fixed), so an interval holds a second at least.
    static let interval = 1.0
    /// Seconds of the first interval, after the first connections: nothing is compared with it
    /// before the first doubling (it is the rate the next step is judged against), so half a
    /// second, one of nginx's 0.5 s sends for each connection, is enough.
    static let firstInterval = 0.5
    /// Seconds after connections open, or after a hold, before the total rate is measured
    /// again: a server's first burst comes with a connection's first bytes (nginx 1.22 with
    /// `limit_rate 4m` sends 2 MiB at once, then 2 MiB each 0.5 s: measured), and would read as
    /// growth.
    static let burstSeconds = 0.25
}

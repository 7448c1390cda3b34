/// When a presentation's pool opens more connections: the file engine's rule
/// (`ConnectionGrowth`: double while the last ones added raised the total rate by half a share
/// each, up to the ceiling), on the bytes every connection of the pool received. Many hosts limit
/// each connection (nginx `limit_rate`, CDNs); there each segment fetched beside the others
/// brings its share, as each range of a file does.
///
/// Pure: the pool counts the bytes, looks every `RangeDownload.burstSeconds` or so, and opens
/// the connections this says. No rate is measured while a viewer waits for their pieces (the
/// pool then holds its connections back on purpose) nor in the first moments of new ones (their
/// first burst would read as growth).
struct SegmentPoolGrowth {
    private var growth: ConnectionGrowth
    /// Where the current interval started: when and the bytes received by then.
    private var window: (start: Double, bytes: Int64)?
    /// No interval starts before this (new connections' first bursts).
    private var quietUntil = 0.0

    init(start: Int, ceiling: Int) {
        growth = ConnectionGrowth(ceiling: ceiling, start: start)
    }

    /// Whether more connections may still open.
    var isGrowing: Bool { !growth.settled && growth.target < growth.ceiling }

    /// One look at `now` with `received` bytes so far: the connections to open now. `held`: a
    /// viewer waits (nothing measured); `left`: pieces not yet taken (a connection needs one).
    mutating func look(now: Double, received: Int64, held: Bool, left: Int) -> Int {
        guard isGrowing, now >= quietUntil else { return 0 }
        guard !held, let window else {
            window = held ? nil : (now, received)
            return 0
        }
        let watched = now - window.start
        guard watched >= (growth.hasMeasured ? RangeDownload.growthInterval : RangeDownload.firstGrowthInterval) else { return 0 }
        let rate = Double(received - window.bytes) / watched
        guard case .open(let more) = growth.measured(rate: rate, canSplit: left >= growth.target) else {
            self.window = (now, received)
            return 0
        }
        self.window = nil
        quietUntil = now + RangeDownload.burstSeconds
        return more
    }
}

import ThreadKit

/// A cap in bytes per second shared by every connection that draws on it: the connections of one
/// download (its own limit), or of every download at once (the global one, one object for the
/// whole app). Changed from any thread; running connections follow at their next piece.
///
/// A token bucket: the level refills at the rate up to `burstSeconds` of it, each piece of a body
/// is charged as it is taken, and a connection may take a piece only while the level is not
/// below zero. libcurl hands a body over in whole reads that cannot be cut, so the level may fall
/// below zero by one read; the next piece then waits until that debt is repaid. Over any interval
/// at most the rate's bytes, one burst and one read pass (one read per thread that raced for the
/// last tokens).
public final class SpeedLimit: Sendable {
    private struct Bucket {
        var rate: Int64?
        /// Bytes that may pass now; below zero, the debt of the last read.
        var level = 0.0
        /// When `level` was last brought up to date (monotonic seconds).
        var stamp: Double

        mutating func refill(now: Double) {
            if let rate {
                level = min(Double(rate) * SpeedLimit.burstSeconds, level + Double(rate) * max(0, now - stamp))
            }
            stamp = now
        }
    }

    /// Seconds of the rate the bucket holds when nobody took from it: small, so that a pause
    /// never turns into a burst.
    static let burstSeconds = 0.1

    private let bucket: Locked<Bucket>

    /// - Parameter bytesPerSecond: the cap; nil (or 0 or less) for none.
    public init(bytesPerSecond: Int64? = nil) {
        bucket = Locked(Bucket(rate: Self.valid(bytesPerSecond), stamp: monotonicSeconds()))
    }

    /// The cap in bytes per second, nil for none. Setting it applies at once to every connection
    /// drawing on it, also to pieces waiting for the old rate.
    public var bytesPerSecond: Int64? {
        get { bucket.withLock { $0.rate } }
        set {
            let rate = Self.valid(newValue)
            let now = monotonicSeconds()
            bucket.withLock { bucket in
                bucket.refill(now: now)
                bucket.rate = rate
                if let rate {
                    // A debt stays owed (it is bytes that came), repaid at the new rate.
                    bucket.level = min(bucket.level, Double(rate) * Self.burstSeconds)
                } else {
                    bucket.level = 0
                }
            }
        }
    }

    private static func valid(_ rate: Int64?) -> Int64? { rate.flatMap { $0 > 0 ? $0 : nil } }

    /// Seconds until a piece may pass; 0 when it may pass now.
    func delay(now: Double) -> Double {
        bucket.withLock { bucket in
            bucket.refill(now: now)
            guard let rate = bucket.rate, bucket.level < 0 else { return 0 }
            return -bucket.level / Double(rate)
        }
    }

    /// Counts `bytes` that passed.
    func charge(_ bytes: Int, now: Double) {
        bucket.withLock { bucket in
            bucket.refill(now: now)
            if bucket.rate != nil { bucket.level -= Double(bytes) }
        }
    }
}

/// The limits one connection draws on (its download's own, the global one): a piece passes only
/// when every one of them lets it, and is charged to all of them.
struct SpeedLimits: Sendable {
    let limits: [SpeedLimit]

    init(_ limits: [SpeedLimit?]) { self.limits = limits.compactMap { $0 } }

    /// Seconds until a piece may pass; 0: now.
    func delay(now: Double) -> Double { limits.reduce(0) { max($0, $1.delay(now: now)) } }

    /// Takes `bytes` if every limit lets them pass now, charging each; else nil and nothing taken.
    func take(_ bytes: Int, now: Double) -> Bool {
        guard delay(now: now) == 0 else { return false }
        for limit in limits { limit.charge(bytes, now: now) }
        return true
    }

    /// The lowest cap, for sizing a connection's reads; nil when none is set.
    var lowestRate: Int64? { limits.compactMap(\.bytesPerSecond).min() }
}

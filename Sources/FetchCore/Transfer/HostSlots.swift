import ThreadKit

/// Connections open per host across every download of this process, so several downloads from
/// one server never open more than a download may alone.
final class HostSlots: Sendable {
    static let shared = HostSlots()
    /// Connections open now per host, and the most open at once since `resetPeak`.
    private let counts = Locked<(now: [String: Int], peak: [String: Int])>(([:], [:]))

    func take(_ host: String) {
        counts.withLock { counts in
            counts.now[host, default: 0] += 1
            counts.peak[host] = max(counts.peak[host] ?? 0, counts.now[host] ?? 0)
        }
    }

    func release(_ host: String) {
        counts.withLock { counts in
            counts.now[host, default: 1] -= 1
            if counts.now[host] == 0 { counts.now[host] = nil }
        }
    }

    func hasRoom(_ host: String, limit: Int) -> Bool { room(host, limit: limit) > 0 }

    /// How many more connections to `host` fit under `limit`.
    func room(_ host: String, limit: Int) -> Int { counts.withLock { max(0, limit - ($0.now[host] ?? 0)) } }

    /// The most connections to `host` open at once since `resetPeak(host)`: what tests read
    /// to see how far connections grew.
    func peak(_ host: String) -> Int { counts.withLock { $0.peak[host] ?? 0 } }

    func resetPeak(_ host: String) { counts.withLock { $0.peak[host] = $0.now[host] } }
}

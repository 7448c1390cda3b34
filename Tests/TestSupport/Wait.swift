import Glibc

/// Polls `condition` every `interval` until it holds or `timeout` has passed; returns whether it
/// held. Tests wait on conditions like this, never on fixed sleeps.
///
/// ```swift
/// #expect(waitUntil(timeout: .seconds(5)) { server.requests(to: "/v.bin").count == 2 })
/// ```
public func waitUntil(timeout: Duration, interval: Duration = .milliseconds(10),
                      _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        usleep(UInt32(max(1, interval.microseconds)))
    }
}

/// The same for async tests: sleeps with `Task.sleep`, so it does not hold one of the few
/// cooperative threads while it waits.
public func waitUntil(timeout: Duration, interval: Duration = .milliseconds(10),
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}

extension Duration {
    /// Whole microseconds, for `usleep`.
    var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}

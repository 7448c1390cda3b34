import ThreadKit

/// Hands values from a worker thread to the main thread, keeping only the newest one.
///
/// Producers (libcurl progress, GStreamer frames) can run far faster than the screen; the relay
/// keeps at most one main-loop callback pending and drops the values it replaces, so the main
/// loop never falls behind a queue of stale updates.
public final class LatestValueRelay<Value: Sendable>: Sendable {
    private let state = Locked<(latest: Value?, pending: Bool)>((nil, false))
    private let deliver: @Sendable @MainActor (Value) -> Void
    private let priority: Int32

    public init(priority: Int32 = 0, deliver: @escaping @Sendable @MainActor (Value) -> Void) {
        self.deliver = deliver
        self.priority = priority
    }

    /// Stores `value` as the newest one; schedules a delivery unless one is already pending.
    public func publish(_ value: Value) {
        let schedule = state.withLock { state -> Bool in
            state.latest = value
            if state.pending { return false }
            state.pending = true
            return true
        }
        guard schedule else { return }
        MainContext.post(priority: priority) { [self] in
            let value = state.withLock { state -> Value? in
                state.pending = false
                defer { state.latest = nil }
                return state.latest
            }
            if let value { deliver(value) }
        }
    }
}

import ThreadKit

/// Hands values from a worker thread to the main thread in order, keeping at most `depth`
/// undelivered ones (past that, the oldest is dropped).
///
/// For video frames: kept to the newest alone, a main loop busy for a little longer than one
/// frame (a slow paint, a core taken by the decoder) would lose a frame that a moment later it
/// would have had time to show. With room for two, such a frame is delivered
/// late instead, and the view shows it at its next paint; a main loop that stays behind still
/// drops all but the newest `depth`, so nothing queues up.
public final class OrderedRelay<Value: Sendable>: Sendable {
    private struct State {
        var waiting: [Value] = []
        var pending = false
        var dropped = 0
    }

    private let state = Locked(State())
    private let depth: Int
    private let deliver: @Sendable @MainActor (Value) -> Void

    public init(depth: Int, deliver: @escaping @Sendable @MainActor (Value) -> Void) {
        self.depth = max(1, depth)
        self.deliver = deliver
    }

    /// Values dropped because `depth` were already waiting.
    public var dropped: Int { state.withLock { $0.dropped } }

    /// Queues `value`; schedules a delivery unless one is already pending.
    public func publish(_ value: Value) {
        let schedule = state.withLock { state -> Bool in
            state.waiting.append(value)
            if state.waiting.count > depth {
                state.waiting.removeFirst(state.waiting.count - depth)
                state.dropped += 1
            }
            if state.pending { return false }
            state.pending = true
            return true
        }
        guard schedule else { return }
        MainContext.post { [self] in
            let values = state.withLock { state -> [Value] in
                state.pending = false
                defer { state.waiting = [] }
                return state.waiting
            }
            values.forEach(deliver)
        }
    }

    /// Forgets what waits (a flushing seek: those values are from before it).
    public func discardWaiting() {
        state.withLock { $0.waiting = [] }
    }
}

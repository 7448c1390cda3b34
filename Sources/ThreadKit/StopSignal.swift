import ThreadKit
import Synchronization

/// A request to stop, readable from libcurl's callbacks without locking and able to wake a
/// worker that waits between retries.
public final class StopSignal: Sendable {
    /// Read without a lock (libcurl's callbacks); `waiting` is the same flag for `wait`.
    private let raised = Atomic<Bool>(false)
    private let waiting = Locked(false)
    /// Signals raised with this one (a run's parts), held weakly: each lives as long as its part.
    private let children = Locked<[WeakSignal]>([])

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    public func raise() {
        waiting.withLockAndNotify { raised in
            raised = true
            self.raised.store(true, ordering: .releasing)
        }
        children.withLock { $0.compactMap(\.signal) }.forEach { $0.raise() }
    }

    /// A signal raised when this one is (at once if it already is), and that can be raised on
    /// its own without raising this one: what stops a presentation's segments and feeds together,
    /// at a pause or at the first failure of either.
    public func child() -> StopSignal {
        let child = StopSignal()
        children.withLock { children in
            children.removeAll { $0.signal == nil }
            children.append(WeakSignal(signal: child))
        }
        if isRaised { child.raise() }
        return child
    }

    private struct WeakSignal: Sendable {
        weak var signal: StopSignal?
    }

    public func lower() {
        waiting.withLock { raised in
            raised = false
            self.raised.store(false, ordering: .releasing)
        }
    }

    /// Waits up to `seconds`; returns true when raised meanwhile.
    public func wait(seconds: Double) -> Bool {
        waiting.wait(until: { $0 }, timeout: seconds)
    }
}

import Foundation
import Locking
import Synchronization

/// A request to stop, readable from libcurl's callbacks without locking and able to wake a
/// worker that waits between retries.
public final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)
    private let condition = NSCondition()
    /// Signals raised with this one (a run's parts), held weakly: each lives as long as its part.
    private let children = Locked<[WeakSignal]>([])

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    public func raise() {
        condition.lock()
        raised.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
        children.withLock { $0.compactMap(\.signal) }.forEach { $0.raise() }
    }

    /// A signal raised when this one is (at once if it already is), and that can be raised on
    /// its own without raising this one: what stops a presentation's segments and feeds together,
    /// at a pause or at the first failure of either.
    func child() -> StopSignal {
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

    func lower() { raised.store(false, ordering: .releasing) }

    /// Waits up to `seconds`; returns true when raised meanwhile.
    func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isRaised {
            if !condition.wait(until: deadline) { break }
        }
        return isRaised
    }
}

import Foundation
import Synchronization

/// A request to stop, readable from libcurl's callbacks without locking and able to wake a
/// worker that waits between retries.
public final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)
    private let condition = NSCondition()

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    public func raise() {
        condition.lock()
        raised.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
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

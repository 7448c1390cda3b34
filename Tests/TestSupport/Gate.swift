import ThreadKit

/// A one-way gate for tests: threads wait until it opens. Built on ThreadKit's `Locked`, the
/// process's one way to wait, instead of a semaphore or a condition of its own.
public final class Gate: Sendable {
    private let isOpen = Locked(false)

    public init() {}

    /// Lets every waiter (and every later one) through.
    public func open() { isOpen.withLockAndNotify { $0 = true } }

    /// Waits until the gate opens, or `timeout` seconds (nil: no limit); true when it opened.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Bool { isOpen.wait(until: { $0 }, timeout: timeout) }
}

import Foundation

/// The resources of a presentation that are whole on disk, which the feeds wait for in playing
/// order while the segment downloads finish them in any order.
final class HLSArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var done: Set<String>
    private var closed = false

    /// - Parameter done: the resources already whole when the download starts.
    init(done: Set<String>) { self.done = done }

    /// `url`'s file is whole.
    func arrived(_ url: String) {
        condition.lock()
        done.insert(url)
        condition.broadcast()
        condition.unlock()
    }

    /// No more will arrive (a pause, a failure): every wait returns.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `url` is whole; false when closed before.
    func wait(for url: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !done.contains(url) {
            if closed { return false }
            condition.wait()
        }
        return !closed
    }
}

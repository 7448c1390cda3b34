import Foundation
import ThreadKit

/// The resources of a presentation that are whole on disk, which the feeds wait for in playing
/// order while the segment downloads finish them in any order.
final class SegmentArrivals: Sendable {
    private let state: Locked<(done: Set<String>, closed: Bool)>

    /// - Parameter done: the resources already whole when the download starts.
    init(done: Set<String>) { state = Locked((done, false)) }

    /// `url`'s file is whole.
    func arrived(_ url: String) { state.withLockAndNotify { _ = $0.done.insert(url) } }

    /// No more will arrive (a pause, a failure): every wait returns.
    func close() { state.withLockAndNotify { $0.closed = true } }

    /// Waits until `url` is whole; false when closed before.
    func wait(for url: String) -> Bool {
        state.wait(until: { $0.done.contains(url) || $0.closed }) { !$0.closed }
    }
}

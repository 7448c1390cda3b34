import CGLib

/// A delay on the main loop, owned: `start` runs a body once after it, restarting the wait if
/// one is pending; `cancel`, or dropping the timer, means it never runs. For a spinner shown
/// late, bars hidden after a while, a size saved once it settles.
@MainActor
public final class OneShotTimer {
    /// Milliseconds.
    private let delay: UInt32
    private var source: UInt32?

    /// - Parameter milliseconds: how long `start` waits.
    public nonisolated init(milliseconds: UInt32) { delay = milliseconds }

    /// Whether a body waits to run.
    public var isPending: Bool { source != nil }

    public func start(_ body: @escaping @Sendable @MainActor () -> Void) {
        cancel()
        source = MainContext.every(milliseconds: delay) { [weak self] in
            // A timer dropped while waiting runs nothing (its source ends when it fires).
            guard let self else { return false }
            source = nil
            body()
            return false
        }
    }

    public func cancel() {
        if let source { g_source_remove(source) }
        source = nil
    }
}

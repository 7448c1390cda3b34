import CGLib

/// The tests' one main-loop pump. Iterates the GLib main context (where a bus watch, frames,
/// GTK's events and the stores' updates arrive) until `condition` holds or `timeout` passes;
/// returns whether it held.
///
/// A 10 ms wake-up source keeps the blocking iteration from sleeping past the deadline.
@MainActor @discardableResult
public func runMainLoop(timeout: Duration = .seconds(10), until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    let wakeUp = g_timeout_add(10, { _ in 1 }, nil)
    defer { g_source_remove(wakeUp) }
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        g_main_context_iteration(nil, 1)
    }
    return true
}

/// Iterates the GLib main context for `duration`, dispatching everything that arrives: for
/// checks that something does *not* happen.
@MainActor
public func runMainLoop(for duration: Duration) {
    _ = runMainLoop(timeout: duration) { false }
}

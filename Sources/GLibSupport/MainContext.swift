// GLibSupport: the small hand-written glue between Swift and GLib that the engine, the player and
// the UI share: the main context, GObject pointers and signals, the one gate for `GError`s
// (`GLibError`) and the log (`Log`).
//
// The one rule for threads in Fetchplay: code that touches widgets or the player runs on the GLib
// main context's thread, which is the process's main thread and so the Swift `MainActor`. On Linux
// the GLib loop does not drain Swift's main queue, so work reaches that thread only through
// `MainContext.post`, a GLib idle source holding a retained closure. Nothing uses
// `DispatchQueue.main` or `Task { @MainActor in }`.
import CGLib

/// Hops work onto the GLib main context from any thread.
public enum MainContext {
    /// Runs `body` once on the main thread from the GLib main loop.
    ///
    /// - Parameter priority: a GLib source priority; lower numbers run first.
    public static func post(priority: Int32 = G_PRIORITY_DEFAULT,
                            _ body: @escaping @Sendable @MainActor () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        g_idle_add_full(priority, { data in
            let box = Unmanaged<ClosureBox>.fromOpaque(data!).takeUnretainedValue()
            MainActor.assumeIsolated { box.body() }
            return 0 // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<ClosureBox>.fromOpaque(data!).release()
        })
    }

    /// Calls `body` every `interval` milliseconds on the main thread until it returns false.
    @discardableResult
    public static func every(milliseconds interval: UInt32,
                             _ body: @escaping @Sendable @MainActor () -> Bool) -> UInt32 {
        let box = Unmanaged.passRetained(RepeatingBox(body)).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, interval, { data in
            let box = Unmanaged<RepeatingBox>.fromOpaque(data!).takeUnretainedValue()
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }, box, { data in
            Unmanaged<RepeatingBox>.fromOpaque(data!).release()
        })
    }
}

private final class ClosureBox: Sendable {
    let body: @Sendable @MainActor () -> Void
    init(_ body: @escaping @Sendable @MainActor () -> Void) { self.body = body }
}

private final class RepeatingBox: Sendable {
    let body: @Sendable @MainActor () -> Bool
    init(_ body: @escaping @Sendable @MainActor () -> Bool) { self.body = body }
}

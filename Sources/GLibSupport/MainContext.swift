// GLibSupport: the small hand-written glue between Swift and GLib that the engine, the player and
// the UI share: the main context and its one-shot delays, GObject pointers and signals, GLib's
// strings, the one gate for `GError`s (`GLibError`) and the log (`Log`).
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
        g_idle_add_full(priority, { data in
            let box = CallbackBox<@Sendable @MainActor () -> Void>.from(data)
            MainActor.assumeIsolated { box.body() }
            return 0 // G_SOURCE_REMOVE
        }, CallbackBox(body).retainedPointer(), releaseBox)
    }

    /// Calls `body` every `interval` milliseconds on the main thread until it returns false.
    @discardableResult
    public static func every(milliseconds interval: UInt32,
                             _ body: @escaping @Sendable @MainActor () -> Bool) -> UInt32 {
        g_timeout_add_full(G_PRIORITY_DEFAULT, interval, { data in
            let box = CallbackBox<@Sendable @MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }, CallbackBox(body).retainedPointer(), releaseBox)
    }
}

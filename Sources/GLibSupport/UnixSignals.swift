import CGLib
import Glibc

/// SIGINT and SIGTERM as ordinary code: GLib's own handler only wakes a main context, whose loop
/// then calls the Swift handler. The window watches on its main context; the headless modes on a
/// context of their own, which a worker thread turns while the main thread waits on a download.
public enum UnixSignals {
    /// Calls `handler` with the signal's number, from `context`'s loop (nil: the main context),
    /// each time one of `numbers` arrives, for as long as the context lives.
    public static func watch(_ numbers: [Int32], on context: OpaquePointer? = nil,
                             _ handler: @escaping @Sendable (Int32) -> Void) {
        // A process inherits the signal mask of the thread that started it, and some starters block
        // everything (a test runner's threads do): unblocked here, or GLib's handler never runs.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        for number in numbers {
            let source = g_unix_signal_source_new(number)
            g_source_set_callback(source, { data in
                CallbackBox<() -> Void>.from(data).body()
                return 1 // G_SOURCE_CONTINUE: a second signal asks again
            }, CallbackBox<() -> Void>({ handler(number) }).retainedPointer(), releaseBox)
            g_source_attach(source, context)
            g_source_unref(source)
        }
    }
}

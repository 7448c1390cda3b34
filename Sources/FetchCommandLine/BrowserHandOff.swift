import CGLib
import FetchCore
import Foundation
import GLibSupport
import Glibc
import Localization

/// A checked browser download, handed to the one running Fetchplay over the session bus: the
/// window's `app.browser-download` action (GApplication's `org.gtk.Actions.Activate`), with the
/// message as `BrowserMessage.encoded` gives it. When no Fetchplay runs, the window's program is
/// started first and its bus name waited for (or its exit).
enum BrowserHandOff {
    static let objectPath = "/" + AppInfo.id.replacingOccurrences(of: ".", with: "/")
    static let action = "browser-download"
    /// Seconds a window just started may take to own its bus name.
    static let startSeconds: UInt32 = 20

    static func send(_ message: BrowserMessage) throws(RequestContextError) {
        guard let bus = try? GLibError.check({ g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }) else {
            throw RequestContextError(tr("Fetchplay could not reach the desktop session’s bus; start Fetchplay, then try again."))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        if !hasOwner(bus) {
            let child = try startWindow()
            guard waitForOwner(bus, child: child) else {
                throw RequestContextError(tr("Fetchplay’s window did not start; start Fetchplay once from the desktop, then try again."))
            }
        }
        try activate(bus, String(decoding: message.encoded, as: UTF8.self))
    }

    private static func hasOwner(_ bus: OpaquePointer) -> Bool {
        let arguments = g_variant_new_tuple([g_variant_new_string(AppInfo.id)], 1)
        guard let reply = try? GLibError.check({
            g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                        "NameHasOwner", arguments, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, $0)
        }) else { return false }
        defer { g_variant_unref(reply) }
        guard let value = g_variant_get_child_value(reply, 0) else { return false }
        defer { g_variant_unref(value) }
        return g_variant_get_boolean(value) != 0
    }

    /// The window's program, in a session of its own with nothing of the browser's pipes, so it
    /// outlives this host and the browser reads no byte of it.
    private static func startWindow() throws(RequestContextError) -> pid_t {
        guard let program = WindowProgram.path(besides: Localization.currentExecutable()) else {
            // TRANSLATORS: %1$@ is a program's file name.
            throw RequestContextError(String(format: tr("the window's program %1$@ is missing; install Fetchplay again."), WindowProgram.name))
        }
        // The browser's environment but the command line's proxy (`FETCHPLAY_PROXY`, which may
        // hold a password): the window takes its proxy from its Preferences, never from there.
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != RequestOptions.proxyVariable }
        let (child, status) = Spawn.start(program, environment: environment) { actions, attributes in
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
            // Nor any other descriptor the browser left open in the host: a pipe the window held
            // would look to the browser as if the host never ended.
            // (posix_spawn_file_actions_addclosefrom_np is not imported.)
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap(Int32.init) where descriptor > STDERR_FILENO && fcntl(descriptor, F_GETFD) != -1 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
            // POSIX_SPAWN_SETSID (glibc 2.26), which Swift does not import.
            posix_spawnattr_setflags(&attributes, 0x80)
        }
        guard status == 0 else {
            // TRANSLATORS: %1$@ is a file's path, %2$@ the system's reason (e.g. "Permission denied").
            throw RequestContextError(String(format: tr("cannot start the window's program %1$@ (%2$@); install Fetchplay again."),
                                             program, String(cString: strerror(status))))
        }
        return child
    }

    /// What the wait below ends on.
    private final class Wait {
        let loop: OpaquePointer
        var appeared = false
        init(_ loop: OpaquePointer) { self.loop = loop }
    }

    /// Waits until Fetchplay owns its bus name (true), or the started `child` exits or
    /// `startSeconds` pass (false), on a main context of this call's own.
    private static func waitForOwner(_ bus: OpaquePointer, child: pid_t) -> Bool {
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        let loop = g_main_loop_new(context, 0)!
        let wait = Wait(loop)
        let user = Unmanaged.passUnretained(wait).toOpaque()
        defer {
            g_main_loop_unref(loop)
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let appeared: GBusNameAppearedCallback = { _, _, _, user in
            let wait = Unmanaged<Wait>.fromOpaque(user!).takeUnretainedValue()
            wait.appeared = true
            g_main_loop_quit(wait.loop)
        }
        let watch = g_bus_watch_name_on_connection(bus, AppInfo.id, G_BUS_NAME_WATCHER_FLAGS_NONE, appeared, nil, user, nil)
        defer { g_bus_unwatch_name(watch) }
        let ended: GSourceFunc = { user in
            g_main_loop_quit(Unmanaged<Wait>.fromOpaque(user!).takeUnretainedValue().loop)
            return 0
        }
        let timeout = g_timeout_source_new_seconds(startSeconds)!
        g_source_set_callback(timeout, ended, user, nil)
        g_source_attach(timeout, context)
        defer { g_source_destroy(timeout); g_source_unref(timeout) }
        let exited: GChildWatchFunc = { _, _, user in
            g_main_loop_quit(Unmanaged<Wait>.fromOpaque(user!).takeUnretainedValue().loop)
        }
        let childWatch = g_child_watch_source_new(child)!
        g_source_set_callback(childWatch, unsafeBitCast(exited, to: GSourceFunc.self), user, nil)
        g_source_attach(childWatch, context)
        defer { g_source_destroy(childWatch); g_source_unref(childWatch) }
        withExtendedLifetime(wait) { g_main_loop_run(loop) }
        return wait.appeared
    }

    /// `org.gtk.Actions.Activate("browser-download", [<message>], {})` on the running Fetchplay.
    private static func activate(_ bus: OpaquePointer, _ message: String) throws(RequestContextError) {
        let variantType = g_variant_type_new("v"), entryType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(variantType); g_variant_type_free(entryType) }
        let parameter = g_variant_new_variant(g_variant_new_string(message))
        let arguments = g_variant_new_tuple([g_variant_new_string(action), g_variant_new_array(variantType, [parameter], 1),
                                             g_variant_new_array(entryType, nil, 0)], 3)
        guard let reply = try? GLibError.check({
            g_dbus_connection_call_sync(bus, AppInfo.id, objectPath, "org.gtk.Actions", "Activate", arguments,
                                        nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, $0)
        }) else {
            throw RequestContextError(tr("The running Fetchplay did not take the link; quit it, start it again, then try again."))
        }
        g_variant_unref(reply)
    }
}

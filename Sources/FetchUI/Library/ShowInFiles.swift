import CGLib
import CGtk
import Foundation
import GLibSupport
import Localization

/// Show in Files: the file manager opens the folder with the video selected, the way GNOME's
/// apps ask for it (`org.freedesktop.FileManager1.ShowItems` on the session bus, which Nautilus,
/// Nemo, Caja, Dolphin and others answer, starting on demand); without one, the folder opens in
/// whatever opens folders; without that either, a sentence says where the file is.
///
/// Every step is asynchronous: a file manager started by D-Bus can take seconds to answer, and
/// the main thread never waits for it.
@MainActor
enum ShowInFiles {
    /// How it went.
    enum Outcome: Equatable, Sendable {
        /// The file manager showed the file (or, when the file is gone, its folder).
        case shown
        /// No file manager answered; the folder was opened by the app for folders.
        case openedFolder
        /// Nothing could show it; the sentence says where it is.
        case failed(String)
    }

    /// Shows `path` (a file that may be gone: then its folder) through `connection`'s session bus
    /// (nil: none), then tells `done`.
    static func show(path: String, connection: OpaquePointer?, parent: UnsafeMutablePointer<GtkWindow>?,
                     done: @escaping @MainActor (Outcome) -> Void) {
        let folder = (path as NSString).deletingLastPathComponent
        let exists = FileManager.default.fileExists(atPath: path)
        let request = Request(folder: folder, done: done, display: parent.flatMap { gtk_widget_get_display($0.as(GtkWidget.self)) })
        guard let connection, let uri = String.fileURI(forPath: exists ? path : folder) else { return request.openFolder() }
        // A file that is gone: its folder, opened rather than selected in its parent.
        let method = exists ? "ShowItems" : "ShowFolders"
        var uris: [UnsafePointer<CChar>?] = [UnsafePointer(strdup(uri)), nil]
        defer { free(UnsafeMutableRawPointer(mutating: uris[0])) }
        let items = uris.withUnsafeMutableBufferPointer { g_variant_new_strv($0.baseAddress, 1) }
        // No startup-notification id: GTK 4.8 on X11 gives none to pass on.
        var children: [OpaquePointer?] = [items, g_variant_new_string("")]
        let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
        typealias Finished = @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        let finished: Finished = { source, result, data in
            let request = Unmanaged<Request>.fromOpaque(data!).takeRetainedValue()
            // No file manager on the bus is an error here: the folder opens instead.
            let reply = try? GLibError.check { g_dbus_connection_call_finish(OpaquePointer(source), result, $0) }
            if let reply { g_variant_unref(reply) }
            MainActor.assumeIsolated { reply != nil ? request.done(.shown) : request.openFolder() }
        }
        g_dbus_connection_call(connection, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                               "org.freedesktop.FileManager1", method, parameters, nil, G_DBUS_CALL_FLAGS_NONE,
                               -1, nil, finished, Unmanaged.passRetained(request).toOpaque())
    }

    /// One Show in Files on its way: the fallback and the answer.
    private final class Request {
        let folder: String
        let done: @MainActor (Outcome) -> Void
        let display: OpaquePointer?

        init(folder: String, done: @escaping @MainActor (Outcome) -> Void, display: OpaquePointer?) {
            self.folder = folder
            self.done = done
            self.display = display
        }

        /// The folder in whatever opens folders (the default app for `inode/directory`).
        @MainActor
        func openFolder() {
            guard let uri = String.fileURI(forPath: folder) else { return done(.failed(sentence)) }
            let context = display.flatMap { gdk_display_get_app_launch_context($0) }
            typealias Finished = @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
            let finished: Finished = { _, result, data in
                let request = Unmanaged<Request>.fromOpaque(data!).takeRetainedValue()
                let opened = (try? GLibError.check { g_app_info_launch_default_for_uri_finish(result, $0) }) ?? 0 != 0
                MainActor.assumeIsolated { request.done(opened ? .openedFolder : .failed(request.sentence)) }
            }
            g_app_info_launch_default_for_uri_async(uri, context?.as(GAppLaunchContext.self), nil, finished,
                                                    Unmanaged.passRetained(self).toOpaque())
            if let context { g_object_unref(context.rawObject) }
        }

        var sentence: String {
            String(format: tr("No file manager could show it. It is in the folder “%1$@”."), folder)
        }
    }
}

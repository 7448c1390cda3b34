import CGtk
import GLibSupport

/// A native file chooser (GTK 4.8 has no GtkFileDialog), shown at once; its owner keeps it while
/// it shows. `done` runs once: with the chosen file's path, or nil when cancelled.
@MainActor
final class NativeFileChooser {
    /// The GtkFileChooserNative, its one reference (released by `deinit`, where GLib's reference
    /// counting is thread-safe).
    nonisolated(unsafe) let chooser: OpaquePointer

    /// - Parameter chooser: made and set up by the caller (title, filter, folder), not shown yet.
    init(_ chooser: OpaquePointer, done: @escaping @MainActor (String?) -> Void) {
        self.chooser = chooser
        // The handler lasts as long as the chooser: the owner drops it from inside `done`.
        chooser.connect("response") { [chooser] (response: UnsafeMutableRawPointer?) in
            guard Int32(truncatingIfNeeded: Int(bitPattern: response)) == GTK_RESPONSE_ACCEPT.rawValue,
                  let file = gtk_file_chooser_get_file(chooser) else { return done(nil) }
            defer { g_object_unref(file.rawObject) }
            done(String(glibTaking: g_file_get_path(file)))
        }.keepForObjectLife()
        gtk_native_dialog_show(chooser.as(GtkNativeDialog.self))
    }

    deinit { g_object_unref(chooser.rawObject) }
}

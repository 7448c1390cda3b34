import CGtk
import GLibSupport

/// The one reference a Swift object holds on a widget it made, for as long as it lives.
///
/// Taken with `g_object_ref_sink` when made: a new widget's floating reference becomes this one
/// (a window, never floating, gets one more beside GTK's own), so the widget outlives its parent
/// while the owner needs it (a library row leaving and rejoining the list). Dropped when the owner
/// goes. Pointers GTK only lends (the focus widget, a row's parent) stay plain pointers that are
/// never kept past the call.
///
/// The convention of every type that builds widgets: `owned`, a reference to each widget it
/// keeps a pointer to, taken at the end of `init` (so none of its pointers outlives its widget,
/// whatever the parent does), and `connections`, the signal handlers it connected, disconnected
/// when it goes (`SignalConnection`).
final class OwnedWidget: @unchecked Sendable {
    // Sendable: only the pointer crosses, and only `deinit` touches it off the main thread (the
    // owner's last release), where GLib's reference counting is thread-safe.
    let pointer: UnsafeMutablePointer<GtkWidget>

    init(_ widget: UnsafeMutablePointer<GtkWidget>) {
        g_object_ref_sink(widget.rawObject)
        pointer = widget
    }

    deinit { g_object_unref(pointer.rawObject) }
}

extension OwnedWidget {
    /// One reference for each of `widgets`: a Swift object keeps the list beside the pointers
    /// to the children it built (or the window it works for), so none of them outlives its
    /// widget, whatever the widget's parent does (a stack's page removed, a row recycled).
    static func keep(_ widgets: UnsafeMutablePointer<GtkWidget>...) -> [OwnedWidget] {
        widgets.map(OwnedWidget.init)
    }
}

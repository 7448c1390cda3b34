import CGtk
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// Real key presses and clicks: `xdotool` through the XTest extension (never `--window`, whose
/// synthetic events GTK ignores), under a real window manager (`openbox`), so focus and key
/// routing are what a person gets.
///
/// The events go to whatever the X server says has the focus or lies under the pointer; the
/// test then turns the GLib loop until the window has reacted.
@MainActor
enum RealInput {
    static func ensureWindowManager() throws { try Desktop.ensureWindowManager() }

    /// A new window on `cacheRoot` under the window manager, with the keyboard focus.
    static func window(cacheRoot: String, width: Int32? = nil, height: Int32? = nil,
                       preferences: Preferences? = nil, link: String? = nil) throws -> MainWindow {
        try ensureWindowManager()
        // No modifier may be left down from an earlier test: Alt held turns a click into
        // openbox's window move and typing into mnemonics. (No --clearmodifiers either: it
        // presses again afterwards whatever it saw held, which is how one gets stuck.)
        try xdotool(["keyup", "Alt_L", "Alt_R", "Control_L", "Control_R", "Shift_L", "Shift_R", "Super_L"])
        let window = try GtkHarness.window(cacheRoot: cacheRoot, preferences: preferences, link: link)
        if let width, let height { gtk_window_set_default_size(window.widget.as(GtkWindow.self), width, height) }
        try #require(runMainLoop(timeout: .seconds(10), until: { isActive(window) }), "the window never got the focus")
        // Let the first layout settle so positions on screen are final.
        runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_width(window.ring.widget) > 0 })
        return window
    }

    static func isActive(_ window: MainWindow) -> Bool {
        gtk_window_is_active(window.widget.as(GtkWindow.self)) != 0
    }

    /// Presses and releases `keys` (xdotool names: "space", "Return", "ctrl+l", "alt+Left").
    static func key(_ keys: String...) throws {
        try xdotool(["key", "--delay", "30"] + keys)
    }

    /// Types `text` as key presses.
    static func type(_ text: String) throws {
        try xdotool(["type", "--delay", "5", text])
    }

    /// Ctrl+L, `text` typed over what the entry held, Enter: a link entered as a person does.
    static func enter(_ text: String, in window: MainWindow) throws {
        try key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { focusIsIn(window, window.ui.entry) }))
        try type(text)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == text }), "typed: \(window.downloadPage.urlText)")
        try key("Return")
    }

    /// Moves the pointer to the middle of `widget` (or `at` inside it) and clicks `button`.
    static func click(_ widget: UnsafeMutablePointer<GtkWidget>, button: Int = 1, at point: (Double, Double)? = nil,
                      count: Int = 1) throws {
        let (x, y) = try screenPoint(widget, at: point)
        try xdotool(["mousemove", "--sync", "\(x)", "\(y)", "click", "--repeat", "\(count)", "--delay", "80", "\(button)"])
    }

    /// Holds the button down on `widget` for `milliseconds`, then lets go (a long press).
    /// Returns whether `held` came true while the button was down.
    @discardableResult
    static func longPress(_ widget: UnsafeMutablePointer<GtkWidget>, milliseconds: Int = 900,
                          held: () -> Bool = { false }) throws -> Bool {
        let (x, y) = try screenPoint(widget, at: nil)
        try xdotool(["mousemove", "--sync", "\(x)", "\(y)", "mousedown", "1"])
        // The press must last: this is the input itself, not a wait for the app.
        let seen = runMainLoop(timeout: .seconds(Double(milliseconds) / 1000), until: held)
        return seen
    }

    /// Moves the pointer to `widget` without clicking.
    static func move(to widget: UnsafeMutablePointer<GtkWidget>) throws {
        let (x, y) = try screenPoint(widget, at: nil)
        try xdotool(["mousemove", "--sync", "\(x)", "\(y)"])
    }

    /// The widget's point on the screen: its place in the window's surface plus the X window's
    /// position on the root window.
    static func screenPoint(_ widget: UnsafeMutablePointer<GtkWidget>, at point: (Double, Double)?) throws -> (Int, Int) {
        // A person clicks what is on screen: a row just put back in its list has no size until
        // the next layout, and its centre would be the list's corner.
        try #require(runMainLoop(timeout: .seconds(5), until: {
            gtk_widget_get_mapped(widget) != 0 && gtk_widget_get_width(widget) > 0 && gtk_widget_get_height(widget) > 0
        }), "the widget is not on screen")
        // Nor does a person click what is still fading in: during a stack's crossfade the page
        // going away still takes the clicks, and a revealer half open is not where it will stay.
        try #require(runMainLoop(timeout: .seconds(5), until: { isSettled(widget) }), "the widget never stopped moving")
        let native = try #require(gtk_widget_get_native(widget))
        let nativeWidget = native.as(GtkWidget.self)
        var local = graphene_point_t(x: Float(point?.0 ?? Double(gtk_widget_get_width(widget)) / 2),
                                     y: Float(point?.1 ?? Double(gtk_widget_get_height(widget)) / 2))
        var inNative = graphene_point_t()
        try #require(gtk_widget_compute_point(widget, nativeWidget, &local, &inNative) != 0, "widget not in its window")
        var surfaceX = 0.0, surfaceY = 0.0
        gtk_native_get_surface_transform(native.opaque, &surfaceX, &surfaceY)
        let surface = try #require(gtk_native_get_surface(native.opaque))
        let origin = try windowOrigin(xid: gdk_x11_surface_get_xid(surface))
        return (origin.x + Int((Double(inNative.x) + surfaceX).rounded()),
                origin.y + Int((Double(inNative.y) + surfaceY).rounded()))
    }

    /// Whether no stack above `widget` runs a transition and no revealer above it is opening or
    /// closing.
    static func isSettled(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
        var current: UnsafeMutablePointer<GtkWidget>? = widget
        while let ancestor = current {
            let type = fp_widget_type(ancestor)
            if g_type_is_a(type, gtk_stack_get_type()) != 0,
               gtk_stack_get_transition_running(ancestor.opaque) != 0 { return false }
            if g_type_is_a(type, gtk_revealer_get_type()) != 0,
               gtk_revealer_get_child_revealed(ancestor.opaque) != gtk_revealer_get_reveal_child(ancestor.opaque) { return false }
            current = gtk_widget_get_parent(ancestor)
        }
        return true
    }

    private static func windowOrigin(xid: UInt) throws -> (x: Int, y: Int) {
        let values = try Desktop.geometry(of: xid)
        return (try #require(values["X"]), try #require(values["Y"]))
    }

    /// The X window behind `window`.
    static func xid(_ window: MainWindow) throws -> UInt {
        gdk_x11_surface_get_xid(try #require(gtk_native_get_surface(window.widget.opaque)))
    }

    private static func xdotool(_ arguments: [String]) throws {
        try Desktop.xdotool(arguments)
    }

    /// Saves the whole screen as `artifacts/ui/<name>.png` and says which X window has the
    /// focus: what a person would have seen when an event went astray.
    static func describeScreen(_ name: String) -> String {
        let path = GtkHarness.artifacts.appendingPathComponent("\(name).png").path
        _ = try? Command.run("/usr/bin/import", ["-window", "root", path], timeout: .seconds(20))
        let focus = (try? Desktop.xdotool(["getwindowfocus", "getwindowname"]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return "X focus on “\(focus)”, screen in \(path)"
    }

    // MARK: What has the focus

    /// The widget with the keyboard focus in `window`.
    static func focus(_ window: MainWindow) -> UnsafeMutablePointer<GtkWidget>? {
        gtk_root_get_focus(window.widget.opaque)
    }

    /// Whether the focus is `widget` or inside it (an entry's focus sits in its text child).
    static func focusIsIn(_ window: MainWindow, _ widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
        guard let focus = focus(window) else { return false }
        return focus == widget || gtk_widget_is_ancestor(focus, widget) != 0
    }

    /// A readable name for the focused widget (for failure messages).
    static func describeFocus(_ window: MainWindow) -> String {
        guard let focus = focus(window) else { return "nothing" }
        let type = String(cString: g_type_name(fp_widget_type(focus)))
        let tip = gtk_widget_get_tooltip_text(focus).map { String(cString: $0) } ?? ""
        return "\(type) “\(tip)”"
    }
}

/// `gdk_x11_surface_get_xid` lives in GTK's X11 backend (in libgtk-4), whose header the shim
/// does not include: the X window behind a surface, to ask the X server where it is.
@_silgen_name("gdk_x11_surface_get_xid")
func gdk_x11_surface_get_xid(_ surface: OpaquePointer) -> UInt

import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import TestSupport
@testable import FetchUI

/// The GTK side of the UI tests: one registered `FetchplayApplication` for the process, a main
/// loop the test turns itself, and PNG snapshots saved under `artifacts/ui/`.
@MainActor
enum GtkHarness {
    /// The application, started (GTK initialised, CSS and actions installed) on first use.
    ///
    /// It registers on the tests' own session bus (`bus`), where a notification server and a
    /// session manager stand in for the desktop's (`peers`): notifications, inhibiting and
    /// D-Bus activation then take the paths they take on a desktop. The bus address is in the
    /// environment only while the app registers, so processes the tests start later (the
    /// command-line tests' `fetchplay`) stay off it.
    static let app: FetchplayApplication = {
        setenv("GSK_RENDERER", "cairo", 0)
        setenv("GDK_BACKEND", "x11", 0)
        // No accessibility bus to start on the private bus (NO_AT_BRIDGE is GTK 3's switch).
        setenv("GTK_A11Y", "none", 0)
        let app = FetchplayApplication(nonUnique: true)
        // Windows made by tests keep their settings in memory unless a test gives a store, and
        // remember no size: a test run never changes the size the developer's own window opens at.
        app.settingsStore = nil
        app.geometryFile = nil
        if let bus, peers != nil { setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1) }
        defer { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        do throws(GLibError) {
            let registered = try GLibError.check { g_application_register(app.application.as(GApplication.self), nil, $0) }
            precondition(registered != 0, "GApplication did not register")
        } catch {
            preconditionFailure("GApplication did not register: \(error.message)")
        }
        return app
    }()

    /// The tests' session bus, or nil where no dbus-daemon could start (the D-Bus tests then
    /// say so instead of running).
    static let bus: PrivateBus? = try? PrivateBus()

    /// The desktop's services on `bus`: a notification server and a session manager, there
    /// before the app starts (GTK looks for the session manager at startup).
    static let peers: DesktopPeers? = bus.flatMap { try? DesktopPeers(bus: $0, services: [.notifications, .sessionManager]) }

    /// The app's unique name on `bus` (it is not unique, so it owns no well-known name).
    static var busName: String? {
        _ = app
        return g_application_get_dbus_connection(app.application.as(GApplication.self))
            .flatMap { g_dbus_connection_get_unique_name($0) }.map { String(cString: $0) }
    }

    /// A new window on a cache at `cacheRoot`, shown; with `preferences` when given.
    /// - Parameter link: in the entry before the window shows, as the app puts a suggested one.
    static func window(cacheRoot: String, preferences: Preferences? = nil, link: String? = nil) throws -> MainWindow {
        let window = MainWindow(application: app.application, cache: .success(try Cache(root: cacheRoot)),
                                preferences: preferences)
        if let link { window.downloadPage.urlText = link }
        window.present()
        _ = runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(window.ring.widget) != 0 })
        return window
    }

    /// Whether `window` is still one of GTK's open windows.
    static func isToplevel(_ window: MainWindow) -> Bool {
        let list = gtk_window_get_toplevels()
        for index in 0..<g_list_model_get_n_items(list) {
            guard let item = g_list_model_get_item(list, index) else { continue }
            defer { g_object_unref(item) }
            if item == window.widget.rawObject { return true }
        }
        return false
    }

    static func close(_ window: MainWindow) {
        gtk_window_destroy(window.widget.as(GtkWindow.self))
        _ = runMainLoop(timeout: .seconds(0.05), until: { false })
    }

    /// The accelerators the application maps to `action`.
    static func accelerators(_ action: FetchplayAction) -> [String] {
        guard let list = gtk_application_get_accels_for_action(app.application, action.detailedName)
        else { return [] }
        defer { g_strfreev(list) }
        var result: [String] = []
        var index = 0
        while let item = list[index] { result.append(String(cString: item)); index += 1 }
        return result
    }

    /// `artifacts/ui/` at the package root (created).
    static let artifacts: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        url.appendPathComponent("artifacts/ui")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Renders `widget` as it is now, through its window's renderer.
    static func texture(of widget: UnsafeMutablePointer<GtkWidget>) -> OpaquePointer? {
        let width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget)
        guard width > 0, height > 0, let native = gtk_widget_get_native(widget),
              let renderer = gtk_native_get_renderer(native) else { return nil }
        let paintable = gtk_widget_paintable_new(widget)!
        defer { g_object_unref(paintable.rawObject) }
        let snapshot = gtk_snapshot_new()!
        gdk_paintable_snapshot(paintable, snapshot.opaque, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return nil }
        defer { gsk_render_node_unref(node) }
        return gsk_renderer_render_texture(renderer, node, nil)
    }

    /// Saves `widget` as `artifacts/ui/<name>.png`; returns the texture's pixels for assertions.
    @discardableResult
    static func screenshot(_ widget: UnsafeMutablePointer<GtkWidget>, _ name: String) -> Pixels? {
        // Let pending layout and drawing happen first; on a loaded machine the first frame of a
        // new window can take a while, so wait for something to render rather than a fixed time.
        runMainLoop(for: .seconds(0.1))
        var rendered: OpaquePointer?
        runMainLoop(timeout: .seconds(10), until: {
            rendered = gtk_widget_get_mapped(widget) != 0 ? texture(of: widget) : nil
            return rendered != nil
        })
        guard let texture = rendered else { return nil }
        defer { g_object_unref(texture.rawObject) }
        gdk_texture_save_to_png(texture, artifacts.appendingPathComponent("\(name).png").path)
        return Pixels(texture: texture)
    }
}

/// The pixels of a texture or an image surface, premultiplied BGRA in memory (cairo's ARGB32).
struct Pixels {
    let width: Int
    let height: Int
    let stride: Int
    let bytes: [UInt8]

    init(texture: OpaquePointer) {
        width = Int(gdk_texture_get_width(texture))
        height = Int(gdk_texture_get_height(texture))
        stride = width * 4
        var bytes = [UInt8](repeating: 0, count: width * 4 * height)
        let rowBytes = gsize(width * 4)
        bytes.withUnsafeMutableBufferPointer { gdk_texture_download(texture, $0.baseAddress, rowBytes) }
        self.bytes = bytes
    }

    init(surface: OpaquePointer) {
        cairo_surface_flush(surface)
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        stride = Int(cairo_image_surface_get_stride(surface))
        bytes = Array(UnsafeBufferPointer(start: cairo_image_surface_get_data(surface), count: stride * height))
    }

    /// The colour at (x, y), un-premultiplied; nil outside the image.
    subscript(x: Double, y: Double) -> RGBAColor? {
        let x = Int(x.rounded(.down)), y = Int(y.rounded(.down))
        guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
        let offset = y * stride + x * 4
        let alpha = Double(bytes[offset + 3]) / 255
        guard alpha > 0 else { return RGBAColor(red: 0, green: 0, blue: 0, alpha: 0) }
        return RGBAColor(red: Double(bytes[offset + 2]) / 255 / alpha, green: Double(bytes[offset + 1]) / 255 / alpha,
                         blue: Double(bytes[offset]) / 255 / alpha, alpha: alpha)
    }
}

extension RGBAColor {
    /// True when every channel is within `tolerance` of `other`'s.
    func isClose(to other: RGBAColor, tolerance: Double = 0.06) -> Bool {
        abs(red - other.red) <= tolerance && abs(green - other.green) <= tolerance
            && abs(blue - other.blue) <= tolerance
    }

    /// `self` (straight alpha) composited over an opaque `base`.
    func over(_ base: RGBAColor) -> RGBAColor {
        RGBAColor(red: red * alpha + base.red * (1 - alpha), green: green * alpha + base.green * (1 - alpha),
                  blue: blue * alpha + base.blue * (1 - alpha))
    }
}

import CGtk
import FetchCore
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// Links dragged with the real pointer (XTest button down, moves, button up) from another window
/// onto Fetchplay's: onto the window a `text/uri-list` link starts downloading; onto the entry a
/// plain-text link replaces the entry's text instead of being spliced into it.
@Suite(.serialized) @MainActor
struct LinkDropTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-drop")
    }

    /// A small window beside Fetchplay's with one label that drags `text` as `mimeType`.
    func dragSourceWindow(_ text: String, mimeType: String) -> (UnsafeMutablePointer<GtkWidget>, UnsafeMutablePointer<GtkWidget>) {
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.as(GtkWindow.self), 220, 120)
        let label = gtk_label_new("Drag me")!
        gtk_widget_set_size_request(label, 200, 100)
        gtk_window_set_child(window.as(GtkWindow.self), label)
        let source = gtk_drag_source_new()!
        let bytes = Array(text.utf8)
        let gbytes = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let provider = gdk_content_provider_new_for_bytes(mimeType, gbytes)
        g_bytes_unref(gbytes)
        gtk_drag_source_set_content(source, provider)
        g_object_unref(provider.map { UnsafeMutableRawPointer($0) })
        gtk_drag_source_set_actions(source, GDK_ACTION_COPY)
        gtk_widget_add_controller(label, source.opaque)
        gtk_window_present(window.as(GtkWindow.self))
        runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(label) != 0 })
        runMainLoop(for: .seconds(0.3))
        return (window, label)
    }

    /// Presses on `from`, moves in steps to `to`, lets go: a drag a person makes.
    func drag(from: UnsafeMutablePointer<GtkWidget>, to: UnsafeMutablePointer<GtkWidget>) throws {
        let start = try RealInput.screenPoint(from, at: nil), end = try RealInput.screenPoint(to, at: nil)
        try Desktop.xdotool(["mousemove", "--sync", "\(start.0)", "\(start.1)", "mousedown", "1"])
        runMainLoop(for: .seconds(0.1))
        for step in 1...12 {
            let x = start.0 + (end.0 - start.0) * step / 12, y = start.1 + (end.1 - start.1) * step / 12
            try Desktop.xdotool(["mousemove", "\(x)", "\(y)"])
            runMainLoop(for: .seconds(0.05)) // each step is delivered and handled as a person's move would be
        }
        runMainLoop(for: .seconds(0.2))
        try Desktop.xdotool(["mouseup", "1"])
    }

    @Test func aLinkDroppedOnTheWindowStarts() throws {
        server.serve("/dropped.webm", body: TestData.bytes(count: 200_000), etag: "\"d\"")
        let url = server.url("/dropped.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let (source, label) = dragSourceWindow(url + "\r\n", mimeType: "text/uri-list")
        defer { gtk_window_destroy(source.as(GtkWindow.self)) }
        try drag(from: label, to: window.ring.widget)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.url == url }),
                "the dropped link did not start: entry “\(window.downloadPage.urlText)”")
        #expect(runMainLoop(timeout: .seconds(10), until: { server.requests(to: "/dropped.webm").count > 0 }))
    }

    @Test func aLinkDroppedOnTheEntryReplacesItsText() throws {
        server.serve("/replaced.webm", body: TestData.bytes(count: 200_000), etag: "\"r\"")
        let url = server.url("/replaced.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = "http://example.invalid/old-link.webm"
        let (source, label) = dragSourceWindow(url, mimeType: "text/plain;charset=utf-8")
        defer { gtk_window_destroy(source.as(GtkWindow.self)) }
        try drag(from: label, to: window.ui.entry)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.downloadPage.urlText == url }),
                "the entry holds “\(window.downloadPage.urlText)”")
    }
}


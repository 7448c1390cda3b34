import CGtk
import FetchCore
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// Each library row's menu, opened by a right-click and its button (a long press on a touch
/// screen), its items clicked, all with real pointer events. Screenshot: `artifacts/ui/library-row-menu.png`.
@Suite(.serialized) @MainActor
struct LibraryMenuTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-menu")
    }

    /// A window with one finished video in its library.
    func windowWithVideo() throws -> (MainWindow, LibraryRow, String) {
        let clip = try Clips.webm(seconds: 2, audio: false)
        server.serve("/menu.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"m\"")
        let url = server.url("/menu.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: {
            window.library?.view.row(url: url)?.model?.isFinished == true && window.library?.store.item(url: url) != nil
        }))
        return (window, try #require(window.library?.view.row(url: url)), url)
    }

    /// The labels of the open menu's visible items, and the widgets to click them.
    func menuItems(_ row: LibraryRow) -> [String: UnsafeMutablePointer<GtkWidget>] {
        guard let popover = gtk_menu_button_get_popover(row.menuButton.opaque) else { return [:] }
        var items: [String: UnsafeMutablePointer<GtkWidget>] = [:]
        func walk(_ widget: UnsafeMutablePointer<GtkWidget>) {
            guard gtk_widget_get_mapped(widget) != 0 else { return }
            if String(cString: g_type_name(fp_widget_type(widget))) == "GtkLabel",
               let text = gtk_label_get_text(widget.opaque).map({ String(cString: $0) }), !text.isEmpty {
                items[text] = widget
            }
            var child = gtk_widget_get_first_child(widget)
            while let current = child { walk(current); child = gtk_widget_get_next_sibling(current) }
        }
        walk(popover.as(GtkWidget.self))
        return items
    }

    func clipboardText() -> String? {
        guard let display = gdk_display_get_default() else { return nil }
        final class Box { var text: String?; var done = false }
        let box = Box()
        typealias Done = @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        let done: Done = { source, result, data in
            let box = Unmanaged<Box>.fromOpaque(data!).takeRetainedValue()
            let text = gdk_clipboard_read_text_finish(OpaquePointer(source), result, nil)
            box.text = text.map { String(cString: $0) }
            g_free(text)
            box.done = true
        }
        gdk_clipboard_read_text_async(gdk_display_get_clipboard(display), nil, done, Unmanaged.passRetained(box).toOpaque())
        runMainLoop(timeout: .seconds(5), until: { box.done })
        return box.text
    }

    @Test func aRightClickAndTheButtonOpenTheRowMenu() throws {
        let (window, row, url) = try windowWithVideo()
        defer { GtkHarness.close(window) }

        // A long press opens it on a touch screen only (XTest cannot touch); with the mouse a
        // press held past the long-press time is just a press.
        try RealInput.longPress(row.row, milliseconds: 1200)
        runMainLoop(for: .seconds(0.3))
        #expect(!row.isMenuOpen, "a held mouse button opened the menu")

        try RealInput.click(row.row, button: 3)
        #expect(runMainLoop(timeout: .seconds(5), until: { row.isMenuOpen }), "a right-click did not open the menu")
        runMainLoop(for: .seconds(0.3))
        let items = menuItems(row)
        #expect(Set(items.keys) == ["Play", "Show in Files", "Copy Link", "Delete"],
                "a finished video's menu: \(items.keys.sorted())")
        if let popover = gtk_menu_button_get_popover(row.menuButton.opaque) {
            GtkHarness.screenshot(popover.as(GtkWidget.self), "library-row-menu")
        }
        try RealInput.click(try #require(items["Copy Link"]))
        #expect(runMainLoop(timeout: .seconds(5), until: { !row.isMenuOpen }))
        #expect(clipboardText() == url, "Copy Link put \(clipboardText() ?? "nothing") on the clipboard")


        // Play from the menu.
        try RealInput.click(row.menuButton)
        #expect(runMainLoop(timeout: .seconds(5), until: { row.isMenuOpen }), "the menu button did not open the menu")
        runMainLoop(for: .seconds(0.3))
        try RealInput.click(try #require(menuItems(row)["Play"]))
        #expect(runMainLoop(timeout: .seconds(10), until: { window.visiblePage == "video" && window.playback.player != nil }))
        try RealInput.key("alt+Left")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        window.playback.player?.close()

        // Delete from the menu: the row goes, the undo bar shows, the file is in the trash.
        let path = try #require(window.library?.store.item(url: url)?.path)
        try RealInput.click(row.menuButton)
        #expect(runMainLoop(timeout: .seconds(5), until: { row.isMenuOpen }))
        runMainLoop(for: .seconds(0.3))
        try RealInput.click(try #require(menuItems(row)["Delete"]))
        #expect(runMainLoop(timeout: .seconds(5), until: { window.library?.view.row(url: url) == nil }),
                "Delete left the row")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.library?.view.isUndoVisible == true }))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// In a window just opened, the library lists the video (its store has read every record)
    /// before the session has read this one: a row's Play, and activating the row, play it once
    /// that read is done, instead of doing nothing (Play) or starting it again (activation).
    @Test func aRowPlaysInAWindowThatHasNotReadItsRecordYet() throws {
        let (first, _, url) = try windowWithVideo()
        GtkHarness.close(first)
        let requests = server.requests(to: "/menu.webm").count

        for activation in [false, true] {
            let window = try RealInput.window(cacheRoot: cache.path)
            defer { GtkHarness.close(window) }
            let library = try #require(window.library)
            #expect(runMainLoop(timeout: .seconds(10), until: { library.store.item(url: url)?.isComplete == true }))
            if activation { library.activate(url) } else { window.activate(.playItem, parameter: url) }
            #expect(runMainLoop(timeout: .seconds(10), until: {
                window.visiblePage == "video" && window.playback.player?.state == .playing
            }), "activated: \(activation); \(String(describing: window.store?.state))")
            window.playback.player?.close()
        }
        #expect(server.requests(to: "/menu.webm").count == requests, "a finished video was downloaded again")
    }
}

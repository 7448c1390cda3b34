import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A big library in a real window under openbox: rows recycled (widgets for a screenful only),
/// Ctrl+F and typing in the list search by name, the counts, sorting by name and size, and
/// several rows deleted with Delete and brought back with one Ctrl+Z, with real key presses.
/// Screenshots: `artifacts/ui/library-search.png`, `library-many-deleted.png`.
@Suite(.serialized) @MainActor
struct LibraryListTests {
    let cache: TemporaryDirectory
    static let count = 300

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-list")
    }

    static func name(_ index: Int) -> String { String(format: "clip-%05d.webm", index) }
    static func url(_ index: Int) -> String { "http://127.0.0.1:1/many/\(name(index))" }

    /// `count` finished videos as downloads leave them: each a copy of one clip with `index`
    /// bytes more (so sizes differ, the biggest last), a minute newer than the one before.
    func fillLibrary() throws {
        let clip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 1, width: 160, height: 90, audio: false))))
        let videos = cache.path + "/videos"
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        let formatter = ISO8601DateFormatter()
        for index in 0..<Self.count {
            let path = "\(videos)/\(Self.name(index))"
            let bytes = clip + [UInt8](repeating: 0, count: index)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let when = formatter.string(from: Date(timeIntervalSince1970: 1_750_000_000 + Double(index) * 60))
            let record: [String: Any] = ["url": Self.url(index), "displayName": Self.name(index), "total": bytes.count,
                                         "durableBytes": bytes.count, "file": path, "created": when, "completed": when]
            let key = sha256Hex(of: Array(Self.url(index).utf8))
            try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: "\(videos)/\(key).json"))
        }
    }

    static func descendants(_ widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        var result: [UnsafeMutablePointer<GtkWidget>] = []
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            result.append(current)
            result += descendants(current)
            child = gtk_widget_get_next_sibling(current)
        }
        return result
    }

    /// Waits until `widget` stands still in `window` from one frame to the next (a toast slides
    /// in: a click on where it was would miss it).
    static func waitUntilStill(_ widget: UnsafeMutablePointer<GtkWidget>, in window: UnsafeMutablePointer<GtkWidget>) -> Bool {
        var last: (frame: Int, x: Float, y: Float)?
        return runMainLoop(timeout: .seconds(5), until: {
            var bounds = graphene_rect_t()
            guard let clock = gtk_widget_get_frame_clock(widget),
                  gtk_widget_compute_bounds(widget, window, &bounds) != 0 else { return false }
            let now = (frame: Int(gdk_frame_clock_get_frame_counter(clock)), x: bounds.origin.x, y: bounds.origin.y)
            guard let before = last, now.frame > before.frame else {
                if last == nil { last = now }
                return false
            }
            last = now
            return before.x == now.x && before.y == now.y
        })
    }

    func total(_ view: LibraryView) -> String { String(cString: gtk_label_get_text(view.totalLabel.opaque)) }

    @Test func aBigLibraryIsSearchedSortedAndThinnedWithRealKeys() throws {
        try fillLibrary()
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let view = try #require(window.library?.view)
        #expect(runMainLoop(timeout: .seconds(20), until: { view.urls.count == Self.count && view.boundRowCount > 0 }))
        // Newest first, and widgets only for what fits on screen.
        #expect(view.shownURLs.first == Self.url(Self.count - 1) && view.shownURLs.last == Self.url(0))
        // GTK 4.8's list view binds at most 200 rows around the view, and thumbnails are made
        // for those on screen only.
        #expect(view.boundRowCount < Self.count, "\(view.boundRowCount) rows made for \(Self.count) videos")
        #expect(runMainLoop(timeout: .seconds(20), until: { view.pendingThumbnails == 0 && view.row(url: Self.url(299))?.hasThumbnail == true }), "no thumbnail on the top row")
        #expect(view.thumbnails.requestedCount < 30, "\(view.thumbnails.requestedCount) thumbnails made for a screenful")
        #expect(total(view).hasPrefix("\(Self.count) videos"), "the summary says \(total(view))")

        // Ctrl+F goes to the search field; typing filters by name; the counts say so.
        try RealInput.key("ctrl+f")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, view.searchEntry) }),
                "Ctrl+F: \(RealInput.describeFocus(window))")
        try RealInput.type("CLIP-0012")
        let matching = (120...129).reversed().map(Self.url)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.shownURLs == matching }), "shown: \(view.shownURLs.count)")
        #expect(total(view).hasPrefix("10 of \(Self.count) shown"), "the summary says \(total(view))")
        #expect(window.downloadPage.urlText.isEmpty, "the search typed into the link entry")
        runMainLoop(for: .seconds(0.3))
        GtkHarness.screenshot(window.widget, "library-search")

        // A cleared search shows everything again.
        try RealInput.key("ctrl+a", "BackSpace")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.shownURLs.count == Self.count }))

        // Sorting: by name A to Z, by size largest first, back to newest first; each from the top.
        gtk_drop_down_set_selected(view.sortChooser.opaque, 1)
        #expect(view.shownURLs.prefix(2) == [Self.url(0), Self.url(1)])
        gtk_drop_down_set_selected(view.sortChooser.opaque, 2)
        #expect(view.shownURLs.first == Self.url(Self.count - 1) && view.shownURLs.last == Self.url(0))
        gtk_drop_down_set_selected(view.sortChooser.opaque, 0)
        #expect(view.shownURLs.first == Self.url(Self.count - 1))

        // Typing while the list has the focus starts a search too.
        #expect(runMainLoop(timeout: .seconds(5), until: { view.row(url: Self.url(Self.count - 1)) != nil }),
                "bound: \(view.boundURLs.count), positions \(view.boundURLs.compactMap { view.shownURLs.firstIndex(of: $0) }.sorted().prefix(3)) … \(view.boundURLs.compactMap { view.shownURLs.firstIndex(of: $0) }.sorted().suffix(3)), scrolled to \(gtk_adjustment_get_value(gtk_scrollable_get_vadjustment(view.list.opaque)))")
        let top = try #require(view.row(url: Self.url(Self.count - 1)))
        try RealInput.click(top.row)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.selectedURL == Self.url(Self.count - 1) }))
        try RealInput.type("00299")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.shownURLs == [Self.url(299)] }),
                "typing in the list: “\(view.searchText)”, \(view.shownURLs.count) shown")
        try RealInput.key("ctrl+f", "ctrl+a", "BackSpace")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.shownURLs.count == Self.count }))

        // Three rows selected (a click, then Shift+click), Delete: all three go, one undo bar.
        let paths = (297...299).map { cache.path + "/videos/" + Self.name($0) }
        let hashes = try paths.map { try sha256Hex(ofFile: $0) }
        try RealInput.click(try #require(view.row(url: Self.url(299))).row)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.selectedURL == Self.url(299) }))
        try RealInput.key("shift+Down", "shift+Down")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.selectedURLs == (297...299).reversed().map(Self.url) }),
                "selected: \(view.selectedURLs)")
        try RealInput.key("Delete")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.urls.count == Self.count - 3 }), "Delete did not delete the three")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.isUndoVisible }))
        #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(view.undoMessage == "3 videos deleted")
        runMainLoop(for: .seconds(0.3))
        GtkHarness.screenshot(window.widget, "library-many-deleted")
        try RealInput.key("ctrl+z")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.urls.count == Self.count }), "one Ctrl+Z did not bring them all back")
        #expect(try paths.map { try sha256Hex(ofFile: $0) } == hashes)
        #expect(view.shownURLs.prefix(3) == (297...299).reversed().map(Self.url)[...])
        #expect(!view.isUndoVisible, "the toast stayed after the undo")

        // Delete one, then close its toast (×): the deletion is final, nothing left to undo.
        let lib = try #require(window.library)
        lib.view.choose(url: Self.url(299))
        window.activate(.delete)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.isUndoVisible && lib.store.pendingDeletion != nil }))
        #expect(view.undoMessage == "“\(Self.name(299))” deleted")
        // The close buttons of the toasts on screen; the one before slides away first.
        let closeButtons = {
            Self.descendants(view.toastOverlay).filter {
                String(cString: g_type_name(fp_widget_type($0))) == "GtkButton" && gtk_widget_get_mapped($0) != 0
                    && gtk_button_get_icon_name($0.as(GtkButton.self)).map { String(cString: $0) } == "window-close-symbolic"
            }
        }
        #expect(runMainLoop(timeout: .seconds(5), until: { closeButtons().count == 1 }), "toasts: \(closeButtons().count)")
        let close = try #require(closeButtons().first, "the toast has no close button")
        #expect(Self.waitUntilStill(close, in: window.widget), "the toast did not come to rest")
        try RealInput.click(close)
        #expect(runMainLoop(timeout: .seconds(5), until: { !view.isUndoVisible }), "the toast did not close")
        #expect(lib.store.pendingDeletion == nil && !window.isEnabled(.undo), "closing the toast did not make it final")
        #expect(view.urls.count == Self.count - 1)
        // No lock of the deletion or the undo is left in the cache.
        let partial = try FileManager.default.contentsOfDirectory(atPath: cache.path + "/partial")
        #expect(partial.isEmpty, "left in partial/: \(partial)")
    }

    /// Opened with no link, the window gives the list the focus once its rows are in (no
    /// blinking cursor in an empty entry): the arrows walk the videos and typing searches.
    @Test func aWindowOpeningOnALibraryFocusesItsListWhereTypingSearches() throws {
        try fillLibrary()
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let view = try #require(window.library?.view)
        #expect(runMainLoop(timeout: .seconds(20), until: { view.urls.count == Self.count && RealInput.focusIsIn(window, view.list) }),
                "focus: \(RealInput.describeFocus(window))")
        try RealInput.key("Down")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.selectedURL != nil }), "Down selected nothing")
        try RealInput.type("00042")
        #expect(runMainLoop(timeout: .seconds(5), until: { view.shownURLs == [Self.url(42)] }),
                "typing in the list: “\(view.searchText)”, \(view.shownURLs.count) shown")
        // The entry shows the selected row's link, not what was typed.
        #expect(!window.downloadPage.urlText.contains("00042"), "the search typed into the link entry")
    }

    /// Ctrl+V while the list has the focus puts the copied link in the entry, as it does
    /// anywhere but a text field.
    @Test func ctrlVFromTheLibraryListPastesTheLink() throws {
        try fillLibrary()
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let view = try #require(window.library?.view)
        #expect(runMainLoop(timeout: .seconds(20), until: { RealInput.focusIsIn(window, view.list) }),
                "focus: \(RealInput.describeFocus(window))")
        let link = "http://127.0.0.1:1/pasted.webm"
        gdk_clipboard_set_text(gdk_display_get_clipboard(gdk_display_get_default()), link)
        try RealInput.key("ctrl+v")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == link }), "the entry holds “\(window.downloadPage.urlText)”")
        #expect(view.searchText.isEmpty, "Ctrl+V pasted into the search")
    }
}

import CGtk
import FetchCore
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// Show in Files from a library row's menu, clicked for real: with a file manager on the tests'
/// bus (a stand-in for `org.freedesktop.FileManager1`, as Nautilus provides it) the file manager
/// is asked to select the video by its URI; for a video that is gone, to open its folder; with
/// no file manager and nothing that opens folders, the window says where the file is.
@Suite(.serialized, .enabled(if: DesktopPeers.isAvailable, "needs dbus-daemon, gdbus and python3-gi"))
@MainActor
struct ShowInFilesTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-show")
    }

    /// Whether anything here opens folders (a file manager installed as the default for
    /// `inode/directory`): the last test needs a machine without.
    nonisolated static var somethingOpensFolders: Bool {
        guard let app = g_app_info_get_default_for_type("inode/directory", 0) else { return false }
        g_object_unref(app.rawObject)
        return true
    }

    /// A window with one finished video, served under a name with a space and a non-ASCII letter.
    func windowWithVideo() throws -> (MainWindow, LibraryRow, String) {
        let clip = try Clips.webm(seconds: 1, audio: false)
        server.serve("/Holiday%20trip%20%C3%A9t%C3%A9.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))),
                     etag: "\"h\"")
        let url = server.url("/Holiday%20trip%20%C3%A9t%C3%A9.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: {
            window.library?.view.row(url: url)?.model?.isFinished == true && window.library?.store.item(url: url) != nil
        }))
        return (window, try #require(window.library?.view.row(url: url)), url)
    }

    /// Opens `row`'s menu with a right-click and clicks "Show in Files".
    func clickShowInFiles(_ row: LibraryRow) throws {
        try RealInput.click(row.row, button: 3)
        #expect(runMainLoop(timeout: .seconds(5), until: { row.isMenuOpen }), "the row menu did not open")
        runMainLoop(for: .seconds(0.3))
        let popover = try #require(gtk_menu_button_get_popover(row.menuButton.opaque)).as(GtkWidget.self)
        var item: UnsafeMutablePointer<GtkWidget>?
        func walk(_ widget: UnsafeMutablePointer<GtkWidget>) {
            if gtk_widget_get_mapped(widget) != 0, String(cString: g_type_name(fp_widget_type(widget))) == "GtkLabel",
               gtk_label_get_text(widget.opaque).map({ String(cString: $0) }) == "Show in Files" { item = widget }
            var child = gtk_widget_get_first_child(widget)
            while let current = child { walk(current); child = gtk_widget_get_next_sibling(current) }
        }
        walk(popover)
        try RealInput.click(try #require(item, "no Show in Files in the menu"))
    }

    @Test func theFileManagerIsAskedToSelectTheVideo() throws {
        let bus = try #require(GtkHarness.bus)
        let fileManager = try DesktopPeers(bus: bus, services: [.fileManager])
        defer { fileManager.stop() }
        let (window, row, url) = try windowWithVideo()
        defer { GtkHarness.close(window) }
        let path = try #require(window.library?.store.item(url: url)?.path)
        #expect(path.hasSuffix("/Holiday trip été.webm"))

        try clickShowInFiles(row)
        #expect(runMainLoop(timeout: .seconds(10), until: { !fileManager.calls("ShowItems").isEmpty }),
                "the file manager was not asked")
        let call = try #require(fileManager.calls("ShowItems").first)
        // The URI percent-encoded as a file manager reads it, and no startup id to pass on.
        let expected = URL(fileURLWithPath: path).absoluteString
        #expect(expected.hasSuffix("/Holiday%20trip%20%C3%A9t%C3%A9.webm"))
        #expect(call.args.first as? [String] == [expected], "\(call.args)")
        #expect(call.args.last as? String == "")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.library?.lastShowInFiles == .shown }))
        #expect(window.downloadPage.urlMessage == nil)

        // A video moved away outside Fetchplay: its folder is opened instead.
        try FileManager.default.removeItem(atPath: path)
        window.library?.store.reload()
        #expect(runMainLoop(timeout: .seconds(10), until: { window.library?.store.item(url: url)?.isMissing == true }))
        try clickShowInFiles(try #require(window.library?.view.row(url: url)))
        #expect(runMainLoop(timeout: .seconds(10), until: { !fileManager.calls("ShowFolders").isEmpty }))
        // (The cache's folder has a plain ASCII name, so its URI is its path after file://.)
        #expect(fileManager.calls("ShowFolders").first?.args.first as? [String]
                == ["file://" + (path as NSString).deletingLastPathComponent])
    }

    @Test(.enabled(if: !somethingOpensFolders, "a file manager on this machine would open the folder"))
    func withNothingToShowItTheWindowSaysWhereItIs() throws {
        let (window, row, url) = try windowWithVideo()
        defer { GtkHarness.close(window) }
        let folder = (try #require(window.library?.store.item(url: url)?.path) as NSString).deletingLastPathComponent
        try clickShowInFiles(row)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.downloadPage.urlMessage != nil }), "no message")
        #expect(window.downloadPage.urlMessage == "No file manager could show it. It is in the folder “\(folder)”.")
        if case .failed = window.library?.lastShowInFiles {} else {
            Issue.record("outcome: \(String(describing: window.library?.lastShowInFiles))")
        }
    }
}

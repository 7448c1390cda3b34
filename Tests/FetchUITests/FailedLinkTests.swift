import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// Failed links in the library, typed and entered with real key presses: a failure with nothing
/// downloaded leaves no row, one with bytes kept says "Failed: <reason>" before and after a
/// restart. Screenshot: `artifacts/ui/library-failed-row.png`.
@Suite(.serialized) @MainActor
struct FailedLinkTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-failed")
    }

    /// Types `url` into the entry and presses Enter, as a person does.
    func enter(_ url: String, in window: MainWindow) throws { try RealInput.enter(url, in: window) }

    func failed(_ window: MainWindow) -> Bool { window.store?.state.isFailed == true }

    @Test func aLinkThatFailedWithNothingDownloadedLeavesNoRow() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        let missing = server.url("/missing.webm")
        try enter(missing, in: window)
        #expect(runMainLoop(timeout: .seconds(20), until: { failed(window) }))
        #expect(window.downloadPage.errorMessage?.contains("404") == true)
        runMainLoop(for: .seconds(0.3)) // a row would appear within a tick or two
        #expect(window.library?.view.row(url: missing) == nil, "a 404 left a row")

        // A refused connection: nothing either.
        let refused = "http://127.0.0.1:9/video.webm"
        window.downloadPage.urlText = ""
        try enter(refused, in: window)
        #expect(runMainLoop(timeout: .seconds(20), until: { failed(window) }))
        runMainLoop(for: .seconds(0.3))
        #expect(window.library?.view.urls.isEmpty == true, "rows: \(window.library?.view.urls ?? [])")
        GtkHarness.close(window)

        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        runMainLoop(timeout: .seconds(1), until: { again.library?.store.items.isEmpty == false })
        #expect(again.library?.view.urls.isEmpty == true, "after a restart: \(again.library?.view.urls ?? [])")
    }

    @Test func aFailureWithBytesKeptSaysWhyBeforeAndAfterARestart() throws {
        server.serve("/flaky.webm", body: TestData.bytes(count: 2_000_000), etag: "\"v1\"",
                     faults: [.throttle(bytesPerSecond: 400_000)], faultyRequests: 1)
        server.addFaults([.status(500)], to: "/flaky.webm", requests: nil)
        let url = server.url("/flaky.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        try enter(url, in: window)
        #expect(runMainLoop(timeout: .seconds(10), until: { (window.store?.progress?.fraction ?? 0) > 0.1 }))
        try RealInput.key("space") // the focus left the entry: Space pauses
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .paused }))
        try RealInput.key("space") // continues: the server now answers 500
        #expect(runMainLoop(timeout: .seconds(30), until: { failed(window) }))
        let row = try #require(window.library?.view.row(url: url))
        #expect(runMainLoop(timeout: .seconds(5), until: { row.model?.detail.hasPrefix("Failed: ") == true }),
                "the row says \(row.model?.detail ?? "nothing")")
        #expect(row.model?.detail.contains("500") == true)
        #expect(row.model?.activity == .failed)
        #expect(row.toggleAction == "Continue this download")
        GtkHarness.screenshot(window.widget, "library-failed-row")
        GtkHarness.close(window)

        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        #expect(runMainLoop(timeout: .seconds(10), until: { again.library?.view.row(url: url)?.model?.detail.hasPrefix("Failed: ") == true }),
                "after a restart the row says \(again.library?.view.row(url: url)?.model?.detail ?? "nothing")")
        #expect(again.library?.view.row(url: url)?.model?.detail.contains("500") == true)
    }
}

/// Every link is checked every time, and the panel, the entry, the library's selection and the
/// buttons show one item; typed and clicked for real.
@Suite(.serialized) @MainActor
struct CurrentItemTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-current")
    }

    /// Selects the whole entry with Ctrl+L and types `text` over it, then Enter.
    func typeOver(_ text: String, in window: MainWindow) throws {
        try RealInput.key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.entry) }))
        if text.isEmpty { try RealInput.key("BackSpace") } else { try RealInput.type(text) }
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == text }), "typed: \(window.downloadPage.urlText)")
        try RealInput.key("Return")
    }

    @Test func afterAFinishedDownloadEveryLinkIsCheckedAgain() throws {
        server.serve("/done.webm", body: TestData.bytes(count: 100_000), etag: "\"d\"")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = server.url("/done.webm")
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.downloadPage.isPlayVisible }))

        for (text, words) in [("not a url", "not a web address"), ("ftp://example.com/v.webm", "http"),
                              ("http://", "not a web address")] {
            try typeOver(text, in: window)
            #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlMessage != nil }), "“\(text)” said nothing")
            #expect(window.downloadPage.urlMessage?.contains(words) == true, "“\(text)”: \(window.downloadPage.urlMessage ?? "")")
            #expect(gtk_widget_is_visible(window.ui.startButton) != 0 && window.isEnabled(.start),
                    "Start is not there for “\(text)”")
        }
        try typeOver("", in: window)
        runMainLoop(for: .seconds(0.2))
        #expect(window.downloadPage.urlMessage == nil, "an empty entry said “\(window.downloadPage.urlMessage ?? "")”")
    }

    @Test func theLibraryTheEntryAndThePanelShowOneItem() throws {
        server.serve("/one.webm", body: TestData.bytes(count: 100_000), etag: "\"1\"")
        server.serve("/two.webm", body: TestData.bytes(count: 100_000), etag: "\"2\"")
        let one = server.url("/one.webm"), two = server.url("/two.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let library = try #require(window.library)
        for url in [one, two] {
            window.downloadPage.urlText = url
            window.activate(.start)
            #expect(runMainLoop(timeout: .seconds(10), until: { library.view.row(url: url)?.model?.isFinished == true }))
        }
        #expect(window.store?.url == two)

        // A click on the other row: the entry, the panel and the buttons follow.
        try RealInput.click(try #require(library.view.row(url: one)).row)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.url == one }),
                "the click on the row: \(RealInput.describeScreen("current-item-click"))")
        #expect(window.downloadPage.urlText == one, "the entry shows \(window.downloadPage.urlText)")
        #expect(String(cString: gtk_label_get_text(window.ui.titleLabel.opaque)) == "one.webm")
        #expect(library.view.selectedURL == one)
        #expect(window.downloadPage.isPlayVisible && gtk_widget_is_visible(window.ui.startButton) == 0)

        // Typing another link leaves the selection: nothing else claims to be current.
        try RealInput.key("ctrl+l")
        try RealInput.type(server.url("/three.webm"))
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == server.url("/three.webm") }))
        #expect(window.store?.url == nil)
        #expect(library.view.selectedURL == nil, "the library still selects \(library.view.selectedURL ?? "")")
        #expect(!window.downloadPage.isPlayVisible && gtk_widget_is_visible(window.ui.startButton) != 0 && window.isEnabled(.start))

        // Typing a known link again shows it.
        try RealInput.key("ctrl+l")
        try RealInput.type(two)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.url == two }))
        #expect(library.view.selectedURL == two)
        #expect(window.downloadPage.isPlayVisible)
    }
}

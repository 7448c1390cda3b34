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
    func enter(_ url: String, in window: MainWindow) throws {
        try RealInput.key("ctrl+l")
        #expect(GtkHarness.iterate(until: { RealInput.focusIsIn(window, window.ui.entry) }, timeout: 5))
        try RealInput.type(url)
        #expect(GtkHarness.iterate(until: { window.urlText == url }, timeout: 5), "typed: \(window.urlText)")
        try RealInput.key("Return")
    }

    func failed(_ window: MainWindow) -> Bool { window.session?.state.isFailed == true }

    @Test func aLinkThatFailedWithNothingDownloadedLeavesNoRow() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        let missing = server.url("/missing.webm")
        try enter(missing, in: window)
        #expect(GtkHarness.iterate(until: { failed(window) }, timeout: 20))
        #expect(window.errorMessage?.contains("404") == true)
        GtkHarness.iterate(for: 0.3) // a row would appear within a tick or two
        #expect(window.library?.view.row(url: missing) == nil, "a 404 left a row")

        // A refused connection: nothing either.
        let refused = "http://127.0.0.1:9/video.webm"
        window.urlText = ""
        try enter(refused, in: window)
        #expect(GtkHarness.iterate(until: { failed(window) }, timeout: 20))
        GtkHarness.iterate(for: 0.3)
        #expect(window.library?.view.urls.isEmpty == true, "rows: \(window.library?.view.urls ?? [])")
        GtkHarness.close(window)

        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        GtkHarness.iterate(until: { again.library?.store.items.isEmpty == false }, timeout: 1)
        #expect(again.library?.view.urls.isEmpty == true, "after a restart: \(again.library?.view.urls ?? [])")
    }

    @Test func aFailureWithBytesKeptSaysWhyBeforeAndAfterARestart() throws {
        server.serve("/flaky.webm", body: TestData.bytes(count: 2_000_000), etag: "\"v1\"",
                     faults: [.throttle(bytesPerSecond: 400_000)], faultyRequests: 1)
        server.addFaults([.status(500)], to: "/flaky.webm", requests: nil)
        let url = server.url("/flaky.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        try enter(url, in: window)
        #expect(GtkHarness.iterate(until: { (window.session?.progress?.fraction ?? 0) > 0.1 }, timeout: 10))
        try RealInput.key("space") // the focus left the entry: Space pauses
        #expect(GtkHarness.iterate(until: { window.session?.state == .paused }, timeout: 10))
        try RealInput.key("space") // continues: the server now answers 500
        #expect(GtkHarness.iterate(until: { failed(window) }, timeout: 30))
        let row = try #require(window.library?.view.row(url: url))
        #expect(GtkHarness.iterate(until: { row.model?.detail.hasPrefix("Failed: ") == true }, timeout: 5),
                "the row says \(row.model?.detail ?? "nothing")")
        #expect(row.model?.detail.contains("500") == true)
        #expect(row.model?.activity == .failed)
        #expect(row.toggleAction == "Continue this download")
        GtkHarness.screenshot(window.widget, "library-failed-row")
        GtkHarness.close(window)

        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        #expect(GtkHarness.iterate(until: { again.library?.view.row(url: url)?.model?.detail.hasPrefix("Failed: ") == true },
                                   timeout: 10),
                "after a restart the row says \(again.library?.view.row(url: url)?.model?.detail ?? "nothing")")
        #expect(again.library?.view.row(url: url)?.model?.detail.contains("500") == true)
    }
}

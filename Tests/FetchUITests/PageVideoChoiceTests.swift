import CAdwaita
import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A web page's link in the window, typed and keyed for real under openbox: a page with one
/// video starts it at once under the page's title; a page with several asks which to save
/// (arrows, Space and Enter work), saves those chosen each under its own title, and Escape saves
/// nothing. Screenshot: `artifacts/ui/page-video-chooser.png`.
@Suite(.serialized) @MainActor
struct PageVideoChoiceTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    static let bodies = (1...3).map { TestData.bytes(count: 120_000, seed: UInt64(370 + $0)) }

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-page")
        server.serve("/course", body: Array("""
            <html><head><title>Knots &amp; Splices – Sea School</title></head><body>
            <video src="/m/one.webm" title="Reef knot"></video>
            <video src="/m/two.webm" title="Bowline"></video>
            <a href="/m/three.webm" title="Eye splice">Eye splice</a>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        for (index, name) in ["one", "two", "three"].enumerated() {
            server.serve("/m/\(name).webm", body: Self.bodies[index], etag: "\"\(name)\"")
        }
    }

    private func chooser(of window: MainWindow) throws -> PageVideoChooser {
        let shown = runMainLoop(timeout: .seconds(15), until: {
            window.pageVideoChooser?.isShown == true
                && window.pageVideoChooser.map { gtk_window_is_active($0.window.as(GtkWindow.self)) != 0 } == true
        })
        if !shown {
            Issue.record("no chooser with the focus (state \(String(describing: window.store?.state)), requests \(server.requests.map(\.path))): \(RealInput.describeScreen("page-video-chooser-missing"))")
        }
        return try #require(window.pageVideoChooser)
    }

    private func titles(_ chooser: PageVideoChooser) -> [String] {
        chooser.rows.map { String(cString: adw_preferences_row_get_title($0.as(AdwPreferencesRow.self))) }
    }

    @Test func realKeysChooseTheVideosAndEachIsSavedUnderItsOwnTitle() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let page = server.url("/course")
        try RealInput.enter(page, in: window)
        let chooser = try chooser(of: window)
        #expect(titles(chooser) == ["Reef knot", "Bowline", "Eye splice"])
        #expect(chooser.chosen == [1, 2, 3], "all are on to begin with")
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/m/") }, "nothing before a choice")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "page-video-chooser") != nil }))

        // Down to the second video, Space turns it off, Enter saves the others.
        try RealInput.key("Down")
        #expect(runMainLoop(timeout: .seconds(5), until: { Widgets.focusIsIn(chooser.window, chooser.rows[1]) }))
        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(5), until: { chooser.chosen == [1, 3] }), "chosen: \(chooser.chosen)")
        try RealInput.key("Return")
        let first = WebAddress.pageVideo(1, on: page), third = WebAddress.pageVideo(3, on: page)
        #expect(runMainLoop(timeout: .seconds(30), until: {
            [first, third].allSatisfy { window.store?.entries[$0]?.state.isCompleted == true }
        }), "entries: \(String(describing: window.store?.entries))")
        #expect(window.pageVideoChooser == nil)
        let names = [first, third].compactMap { window.store?.entries[$0]?.state.completedPath }.map { ($0 as NSString).lastPathComponent }
        #expect(names == ["Reef knot.webm", "Eye splice.webm"])
        #expect(server.requests(to: "/m/two.webm").isEmpty)
        #expect(window.store?.entries[page] == nil, "the page's own entry left the queue")
        #expect(window.store?.url == first, "the first chosen is the one shown")
    }

    @Test func escapeSavesNothing() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.enter(server.url("/course"), in: window)
        _ = try chooser(of: window)
        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.pageVideoChooser == nil }), "Escape did not close the chooser")
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/m/") })
        #expect(window.store?.state == .failed(.severalVideos(3)))
    }

    @Test func aPageWithOneVideoStartsAtOnceUnderThePagesTitle() throws {
        server.serve("/single", body: Array("""
            <html><head><meta property="og:title" content="Reef knot in slow motion | Sea School"></head>
            <body><video src="/m/one.webm"></video></body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.enter(server.url("/single"), in: window)
        #expect(runMainLoop(timeout: .seconds(30), until: { window.store?.state.isCompleted == true }),
                "state: \(String(describing: window.store?.state))")
        #expect(window.pageVideoChooser == nil)
        let path = try #require(window.store?.state.completedPath)
        #expect((path as NSString).lastPathComponent == "Reef knot in slow motion.webm")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.bodies[0]))
        let title = String(cString: gtk_label_get_text(window.ui.titleLabel.opaque))
        #expect(title == "Reef knot in slow motion.webm", "the title line names the page's video, not the page's link")
    }

    @Test func aTokenThatExpiresDuringAPauseIsRefreshedAndSaidSoNeverAsAFailure() throws {
        let body = TestData.bytes(count: 700_000, seed: 377)
        func page(_ token: String) -> [UInt8] { Array("<title>Tide tables</title><video src='/\(token)/tides.webm'></video>".utf8) }
        server.serve("/tides", body: page("t1"), headers: [HTTPHeader("Content-Type", "text/html")])
        server.serve("/t1/tides.webm", body: body, etag: "\"t\"", faults: [.throttle(bytesPerSecond: 250_000)])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.enter(server.url("/tides"), in: window)
        let session = try #require(window.store)
        #expect(runMainLoop(timeout: .seconds(20), until: { (session.progress?.bytesDone ?? 0) > 0 }))
        session.pause()
        #expect(runMainLoop(timeout: .seconds(10), until: { session.state == .paused }), "state: \(session.state)")

        // While it is paused the token expires; the page now names a fresh one.
        server.serve("/t1/tides.webm", body: body, etag: "\"t\"", faults: [.status(403)])
        server.serve("/t2/tides.webm", body: body, etag: "\"t\"", faults: [.throttle(bytesPerSecond: 250_000)])
        server.serve("/tides", body: page("t2"), headers: [HTTPHeader("Content-Type", "text/html")])
        session.start()
        var saw = ""
        #expect(runMainLoop(timeout: .seconds(20), until: {
            saw = String(cString: gtk_label_get_text(window.ui.statusLabel.opaque))
            return saw.hasPrefix("Link refreshed")
        }), "status: \(saw), state \(session.state)")
        #expect(gtk_widget_get_visible(window.ui.errorBox) == 0, "no failure is shown")
        #expect(runMainLoop(timeout: .seconds(30), until: { session.state.isCompleted }), "state: \(session.state)")
        #expect(try sha256Hex(ofFile: #require(session.state.completedPath)) == sha256Hex(of: body))
        let fresh = try #require(server.requests(to: "/t2/tides.webm").first)
        #expect(fresh["range"] != nil, "it went on from the bytes it had")
    }
}

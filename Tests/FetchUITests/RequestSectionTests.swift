import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// The link's Request section, filled with real clicks and key presses: what it holds goes with
/// the download's request, the fields let go of it at Start, and the window names what the
/// download carries without showing a value. The browser's hand-off shows the same way.
/// Screenshot: `artifacts/ui/request-section.png`.
@Suite(.serialized) @MainActor
struct RequestSectionTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    static let secrets = ["s3cret-cookie", "t0ken-value"]

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-request")
    }

    /// Every label's text in `widget`'s tree: what the window shows as text.
    static func labelTexts(in widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var texts: [String] = []
        if String(cString: gtk_widget_get_css_name(widget)) == "label", let text = gtk_label_get_text(widget.opaque) {
            texts.append(String(cString: text))
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            texts += labelTexts(in: current)
            child = gtk_widget_get_next_sibling(current)
        }
        return texts
    }

    func click(_ widget: UnsafeMutablePointer<GtkWidget>, in window: MainWindow) throws {
        try RealInput.click(widget)
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, widget) }), "\(RealInput.describeFocus(window))")
    }

    @Test func whatTheSectionHoldsGoesWithTheRequestAndIsNeverShown() throws {
        server.serve("/clip.webm", body: TestData.bytes(count: 300_000), etag: "\"r1\"")
        let url = server.url("/clip.webm")
        let page = server.url("/page.html")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.key("ctrl+l")
        try RealInput.type(url)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == url }))
        let request = window.ui.request
        try RealInput.click(request.expander, at: (20, 8))
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_expander_get_expanded(request.expander.opaque) != 0 }))
        runMainLoop(timeout: .seconds(2), until: { RealInput.isSettled(request.cookies) })
        try click(request.cookies, in: window)
        try RealInput.type("sid=\(Self.secrets[0]); theme=dark")
        try click(request.referer, in: window)
        try RealInput.type(page)
        try click(request.headers[0], in: window)
        try RealInput.type("X-Token: \(Self.secrets[1])")
        GtkHarness.screenshot(window.widget, "request-section")
        try RealInput.click(window.ui.startButton)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state.completedPath != nil }),
                "state: \(String(describing: window.store?.state)), message: \(window.downloadPage.urlMessage ?? "none")")

        let sent = try #require(server.requests(to: "/clip.webm").first)
        #expect(sent.headers.first { $0.name == "cookie" }?.value == "sid=\(Self.secrets[0]); theme=dark")
        // The page is on the video's own origin, so the whole address goes.
        #expect(sent.headers.first { $0.name == "referer" }?.value == page)
        #expect(sent.headers.first { $0.name == "x-token" }?.value == Self.secrets[1])
        // The fields let go of it, folded; the window names what went, no value.
        #expect(gtk_expander_get_expanded(request.expander.opaque) == 0)
        #expect(String(cString: gtk_editable_get_text(request.cookies.opaque)).isEmpty)
        #expect(String(cString: gtk_editable_get_text(request.headers[0].opaque)).isEmpty)
        let texts = Self.labelTexts(in: window.widget)
        #expect(texts.contains("Sent with 2 cookies, the page’s address, 1 header."), "labels: \(texts)")
        for secret in Self.secrets { #expect(!texts.contains { $0.contains(secret) }, "\(secret) shows") }
    }

    @Test func aMalformedHeaderIsSaidUnderTheLinkAndNothingIsRequested() throws {
        let url = server.url("/never.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = url
        gtk_expander_set_expanded(window.ui.request.expander.opaque, 1)
        runMainLoop(timeout: .seconds(2), until: { RealInput.isSettled(window.ui.request.headers[0]) })
        try click(window.ui.request.headers[0], in: window)
        try RealInput.type("no colon here")
        try RealInput.click(window.ui.startButton)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlMessage != nil }))
        #expect(window.downloadPage.urlMessage?.contains("colon") == true, "message: \(window.downloadPage.urlMessage ?? "none")")
        runMainLoop(for: .seconds(0.3))
        #expect(server.requests.isEmpty, "requested: \(server.requests.map(\.target))")
    }

    @Test func aLinkFromTheBrowserShowsItsNameAndWhatItCarries() throws {
        server.serve("/watch/video.mp4", body: TestData.bytes(count: 200_000), etag: "\"b1\"")
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let message = try JSONSerialization.data(withJSONObject: [
            "type": "download", "url": server.url("/watch/video.mp4"), "referrer": "http://127.0.0.1/watch",
            "userAgent": "Mozilla/5.0 Test", "fileName": "A Good Film.mp4",
            "cookies": [["name": "sid", "value": Self.secrets[0], "domain": "127.0.0.1", "hostOnly": true, "path": "/",
                         "secure": false, "httpOnly": true, "session": true]],
        ] as [String: Any])
        window.downloadFromBrowser(String(decoding: message, as: UTF8.self))
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state.completedPath != nil }))
        let sent = try #require(server.requests(to: "/watch/video.mp4").first)
        #expect(sent.headers.first { $0.name == "cookie" }?.value == "sid=\(Self.secrets[0])")
        #expect(sent.headers.first { $0.name == "user-agent" }?.value == "Mozilla/5.0 Test")
        #expect(window.store?.state.completedPath?.hasSuffix("/A Good Film.mp4") == true,
                "saved as \(window.store?.state.completedPath ?? "nothing")")
        let texts = Self.labelTexts(in: window.widget)
        #expect(texts.contains("A Good Film.mp4"), "labels: \(texts)")
        #expect(texts.contains("From the browser, with 1 cookie, the page’s address, the browser’s user agent."), "labels: \(texts)")
        #expect(!texts.contains { $0.contains(Self.secrets[0]) })
    }
}

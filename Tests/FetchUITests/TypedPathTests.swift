import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// What a person types into the link field that is no link, typed with real key presses: a
/// path to a video on this computer opens it, a path with no file there and a bare file name
/// say so under the entry, and nothing is downloaded; a host typed without `http://` is a link.
@Suite(.serialized) @MainActor
struct TypedPathTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-typed")
    }

    @Test func aPathToAVideoOpensIt() throws {
        let clip = try Clips.webm(seconds: 2, audio: false)
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.enter(clip, in: window)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.visiblePage == "video" && window.playback.view.framesShown >= 1 }),
                "page \(window.visiblePage)")
        #expect(window.playback.player?.path == clip)
        #expect(window.store?.url == nil, "a download was started")
        #expect(window.library?.view.urls.isEmpty == true)
    }

    @Test func aPathWithNoFileOrABareNameSaysSoAndFetchesNothing() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        for (text, words) in [("/no/such/folder/clip.webm", "on this computer, not a link"),
                              ("clips/clip.webm", "on this computer, not a link"),
                              ("clip.webm", "not a web address")] {
            try RealInput.enter(text, in: window)
            #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlMessage != nil }), "“\(text)” said nothing")
            #expect(window.downloadPage.urlMessage?.contains(words) == true, "“\(text)”: \(window.downloadPage.urlMessage ?? "")")
            #expect(window.visiblePage == "download")
            #expect(window.store?.url == nil, "“\(text)” started a download")
        }
        #expect(window.library?.view.urls.isEmpty == true)
    }

    @Test func aHostTypedWithoutTheSchemeIsALink() throws {
        server.serve("/v.webm", body: TestData.bytes(count: 50_000), etag: "\"v\"")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let typed = "127.0.0.1:\(server.port)/v.webm"
        try RealInput.enter(typed, in: window)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.downloadPage.isPlayVisible }), "message: \(window.downloadPage.urlMessage ?? "none")")
        #expect(window.store?.url == "http://127.0.0.1:\(server.port)/v.webm")
        #expect(server.requests(to: "/v.webm").count == 1)
    }
}

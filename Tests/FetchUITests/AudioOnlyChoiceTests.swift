import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// The choosers' "Audio only" switch, clicked for real under openbox: off to begin with; on, a
/// page's chosen videos are saved as their audio tracks alone (an MP4's AAC as `.m4a`, a WebM's
/// Vorbis as `.webm`, the videos gone), and a DASH link's chosen quality as its audio
/// AdaptationSet alone, no video segment fetched. Screenshots:
/// `artifacts/ui/page-video-chooser-audio-only.png`, `artifacts/ui/variant-chooser-audio-only.png`.
@Suite(.serialized) @MainActor
struct AudioOnlyChoiceTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-audio-only")
    }

    /// The audio-only file at `path`: no video, one audio stream.
    private func expectAudioAlone(_ path: String?, named name: String) throws {
        let path = try #require(path)
        #expect((path as NSString).lastPathComponent == name)
        let media = try DiscoveredMedia.probe(path)
        #expect(media.videoStreams == 0 && media.audioStreams == 1, "\(media)")
    }

    @Test func thePageChoosersSwitchSavesEachChosenVideosAudioAlone() throws {
        let mp4 = try Clips.mp4IndexLast(seconds: 4), webm = try Clips.webm(seconds: 2)
        server.serve("/m/reef.mp4", body: Array(try Data(contentsOf: URL(fileURLWithPath: mp4))), etag: "\"reef\"")
        server.serve("/m/bowline.webm", body: Array(try Data(contentsOf: URL(fileURLWithPath: webm))), etag: "\"bowline\"")
        server.serve("/course", body: Array("""
            <html><head><title>Knots by ear</title></head><body>
            <video src="/m/reef.mp4" title="Reef knot"></video>
            <video src="/m/bowline.webm" title="Bowline"></video>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let page = server.url("/course")
        try RealInput.enter(page, in: window)
        #expect(runMainLoop(timeout: .seconds(15), until: {
            window.pageVideoChooser?.isShown == true
                && window.pageVideoChooser.map { gtk_window_is_active($0.window.as(GtkWindow.self)) != 0 } == true
        }), "no chooser: \(RealInput.describeScreen("audio-only-page-chooser-missing"))")
        let chooser = try #require(window.pageVideoChooser)
        #expect(!chooser.isAudioOnly, "off to begin with")

        try RealInput.click(chooser.audioOnly)
        #expect(runMainLoop(timeout: .seconds(5), until: { chooser.isAudioOnly }),
                "the click missed: \(RealInput.describeScreen("audio-only-switch-click"))")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "page-video-chooser-audio-only") != nil }))
        try RealInput.click(try #require(chooser.button(PageVideoChooser.download)))
        let links = [1, 2].map { WebAddress.pageVideo($0, on: page) }
        #expect(runMainLoop(timeout: .seconds(60), until: { links.allSatisfy { window.store?.entries[$0]?.state.isCompleted == true } }),
                "entries: \(String(describing: window.store?.entries))")
        try expectAudioAlone(window.store?.entries[links[0]]?.state.completedPath, named: "Reef knot.m4a")
        try expectAudioAlone(window.store?.entries[links[1]]?.state.completedPath, named: "Bowline.webm")
        let videos = try FileManager.default.contentsOfDirectory(atPath: cache.path + "/videos").filter { !$0.hasSuffix(".json") }
        #expect(Set(videos) == ["Reef knot.m4a", "Bowline.webm"], "the videos are gone: \(videos)")
    }

    @Test func theQualityChoosersSwitchSavesTheAudioAdaptationSetAlone() throws {
        let clip = try Clips.dash()
        clip.serve(on: server)
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        try RealInput.enter(server.url("/multi/index.mpd"), in: window)
        #expect(runMainLoop(timeout: .seconds(15), until: {
            window.variantChooser?.isShown == true && window.variantChooser.map { RealInput.focusIsIn($0) } == true
        }), "no chooser: \(RealInput.describeScreen("audio-only-variant-chooser-missing"))")
        let chooser = try #require(window.variantChooser)
        try RealInput.click(chooser.audioOnly)
        #expect(runMainLoop(timeout: .seconds(5), until: { chooser.isAudioOnly }),
                "the click missed: \(RealInput.describeScreen("audio-only-variant-switch-click"))")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "variant-chooser-audio-only") != nil }))
        try RealInput.click(try #require(chooser.button(VariantChooser.download)))
        #expect(runMainLoop(timeout: .seconds(60), until: { window.store?.state.isCompleted == true }),
                "not saved: \(String(describing: window.store?.state))")
        try expectAudioAlone(window.store?.state.completedPath, named: "index.m4a")
        let video = server.requests.map(\.path).filter { $0.hasPrefix("/multi/") && ($0.contains("stream0") || $0.contains("stream1")) }
        #expect(video.isEmpty, "no video segment fetched: \(video)")
    }
}

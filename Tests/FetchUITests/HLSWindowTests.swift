import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// An HLS link in the real window: the ring fills by seconds of video, Pause and Continue work,
/// and the finished MP4 is what Play opens.
@Suite(.serialized) @MainActor
struct HLSWindowTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let clip: HLSClip

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-hls")
        clip = try Clips.hls()
        clip.serve(on: server)
    }

    @Test func anHLSLinkFillsTheRingPausesContinuesAndCompletes() throws {
        let segments = clip.segments(of: "v360")
        for (index, segment) in segments.enumerated() where index > 0 {
            server.serve("/" + segment, body: clip.files[segment]!, etag: "\"s\(index)\"",
                         faults: [.throttle(bytesPerSecond: 80_000)], faultyRequests: 1)
        }
        // Four segments come at a time: the last one's second half waits until the pause is
        // seen, so the presentation cannot end first.
        let last = try #require(segments.last)
        let lastSize = clip.files[last]!.count
        server.hold("/" + last, offsets: lastSize / 2..<lastSize)
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = server.url("/v360/index.m3u8")
        window.activate(.start)
        let fraction = { window.store?.progress?.fraction ?? 0 }
        #expect(runMainLoop(timeout: .seconds(20), until: { fraction() > 0 && window.store?.state == .downloading }),
                "the ring never started filling")
        #expect(window.downloadPage.statusText.contains("segments"), "\(window.downloadPage.statusText)")
        GtkHarness.screenshot(window.widget, "window-hls-downloading")

        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.state == .paused }))
        #expect(window.isEnabled(.continue))
        server.release("/" + last)
        window.activate(.continue)
        #expect(runMainLoop(timeout: .seconds(60), until: { if case .completed = window.store?.state { true } else { false } }), "the presentation did not complete")
        guard case .completed(let path) = window.store?.state else { return }
        #expect(path.hasSuffix(".mp4"))
        #expect(fraction() == 1)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.isPlayVisible && window.isEnabled(.play) }))
        #expect(runMainLoop(timeout: .seconds(5), until: { !window.ring.isAnimating && window.ring.currentFrame.checkmark >= 1 }), "the checkmark did not finish drawing")
        #expect(abs(try DiscoveredMedia.probe(path).duration - clip.seconds) < 0.25)
        GtkHarness.screenshot(window.widget, "window-hls-done")
    }

    /// Enter on an HLS link, which shows no control while its playlist is read, still moves the
    /// focus to the download's control: at the end Space plays it instead of typing over the link.
    @Test func enterOnAnHLSLinkLeavesTheFocusOnItsControls() throws {
        let url = server.url("/v360/index.m3u8")
        let window = try RealInput.window(cacheRoot: cache.path, link: url)
        defer { GtkHarness.close(window) }
        try RealInput.key("Return")
        #expect(runMainLoop(timeout: .seconds(60), until: { if case .completed = window.store?.state { window.downloadPage.isPlayVisible } else { false } }), "the presentation did not complete")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.playButton) }),
                "focus on \(RealInput.describeFocus(window))")
        // The Play button slides in; a key pressed meanwhile may reach it half-shown.
        runMainLoop(timeout: .seconds(3), until: { gtk_revealer_get_child_revealed(window.ui.playRevealer.opaque) != 0 })
        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.visiblePage == "video" }),
                "Space did not play; focus on \(RealInput.describeFocus(window))")
        #expect(window.downloadPage.urlText == url, "the link became “\(window.downloadPage.urlText)”")
    }

    @Test func anUnfinishedPresentationIsListedAfterARestartAndContinues() throws {
        let segments = clip.segments(of: "v360")
        for (index, segment) in segments.enumerated() where index >= 2 {
            server.serve("/" + segment, body: clip.files[segment]!, etag: "\"s\(index)\"",
                         faults: [.throttle(bytesPerSecond: 40_000)], faultyRequests: 1)
        }
        // The last segment's second half waits until the pause is done: it cannot finish first.
        let last = try #require(segments.last)
        let lastSize = clip.files[last]!.count
        server.hold("/" + last, offsets: lastSize / 2..<lastSize)
        let url = server.url("/v360/index.m3u8")
        // Paused half-way by another run (the command line, or a window that quit).
        let earlier = try DownloadTask(url: url, cache: Cache(root: cache.path)) { _ in }
        earlier.start()
        #expect(waitUntil(timeout: .seconds(20)) { (earlier.progress.segments?.done ?? 0) >= 2 })
        earlier.pause()
        #expect(earlier.wait() == .paused)
        server.release("/" + last)

        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let library = try #require(window.library)
        #expect(runMainLoop(timeout: .seconds(10), until: { library.view.row(url: url)?.model?.activity == .paused }),
                "the unfinished presentation is not listed")
        let row = try #require(library.view.row(url: url))
        #expect(row.toggleAction == "Continue this download")
        #expect(row.model?.detail.hasPrefix("Paused") == true && row.model?.detail.contains("segments") == true,
                "\(row.model?.detail ?? "")")
        #expect((row.model?.fraction ?? 0) > 0)
        GtkHarness.screenshot(window.widget, "window-hls-partial-after-restart")

        row.pressToggle()
        #expect(runMainLoop(timeout: .seconds(60), until: { library.view.row(url: url)?.model?.activity == .finished }),
                "Continue did not finish the presentation")
        // The segments done before were not fetched again.
        #expect(server.requests(to: "/" + segments[0]).count == 1 && server.requests(to: "/" + segments[1]).count == 1)
        let path = try #require(library.view.row(url: url)?.model?.videoPath)
        #expect(abs(try DiscoveredMedia.probe(path).duration - clip.seconds) < 0.25)
    }
}

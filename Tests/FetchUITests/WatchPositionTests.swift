import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A DASH presentation watched while it downloads keeps where it was left under its link (it
/// has no file yet): after a pause and a quit, the next window continues the download and plays
/// from there. Driven with real keys where a person would use them (Right, Alt+Left).
@Suite(.serialized) @MainActor
struct WatchPositionTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let clip: DASHClip

    init() throws {
        clip = try Clips.dashLecture()
        server = try FaultServer()
        // Slow enough that the download is far from done when the window closes.
        clip.serve(on: server, mediaBytesPerSecond: 60_000)
        cache = try TemporaryDirectory(prefix: "fetchplay-watch-position")
    }

    @Test func aPresentationWatchedWhileItDownloadsResumesThereAfterAQuit() throws {
        let url = server.url("/lecture/index.mpd")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(30), until: { window.isEnabled(.play) }), "Play never appeared")
        window.activate(.play)
        let player = { window.playback.player }
        #expect(runMainLoop(timeout: .seconds(20), until: { player()?.state == .playing }))
        try RealInput.key("Right") // ahead, where nothing is on disk yet
        #expect(runMainLoop(timeout: .seconds(30), until: { (player().map { !$0.isSeeking && ($0.position ?? 0) >= 5 }) == true }),
                "the seek ahead never played: \(String(describing: player()?.position))")
        // What a person sees: the picture from there, the seek bar with the parts on disk.
        runMainLoop(timeout: .seconds(5), until: { (window.playback.view.controls.downloadedParts.parts?.count ?? 0) >= 2 })
        GtkHarness.screenshot(window.widget, "watching-presentation")
        try RealInput.key("alt+Left")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        // Leaving the video page paused it there.
        let left = try #require(player()?.position)
        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.downloadPage.store?.state == .paused }))
        window.playback.positions?.flush()
        GtkHarness.close(window)
        let table = FileManager.default.contents(atPath: cache.file("positions.json")).flatMap {
            try? JSONDecoder().decode([String: Double].self, from: $0)
        } ?? [:]
        #expect(table.values.contains { abs($0 - left) < 0.5 }, "no position kept: \(table)")
        #expect(!table.keys.contains { $0.contains("127.0.0.1") }, "the link itself went into positions.json")

        // The next run: Continue, then Play resumes where it was left, the download going on.
        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        again.downloadPage.urlText = url
        #expect(runMainLoop(timeout: .seconds(10), until: { again.isEnabled(.continue) }))
        again.activate(.continue)
        #expect(runMainLoop(timeout: .seconds(30), until: { again.isEnabled(.play) }))
        again.activate(.play)
        #expect(runMainLoop(timeout: .seconds(10), until: { again.playback.resumedFrom != nil }))
        #expect(again.playback.resumedFrom.map { abs($0 - left) < 0.5 } == true, "resumed from \(String(describing: again.playback.resumedFrom)), left at \(left)")
        #expect(runMainLoop(timeout: .seconds(30), until: { (again.playback.player?.position ?? 0) >= left + 0.5 }),
                "it did not play on from \(left): \(String(describing: again.playback.player?.position))")
        #expect(runMainLoop(timeout: .seconds(90), until: { again.downloadPage.store?.state.completedPath != nil }),
                "the download did not finish: \(String(describing: again.downloadPage.store?.state))")
    }
}

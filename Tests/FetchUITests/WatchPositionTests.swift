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
        #expect(GtkHarness.iterate(until: { window.isEnabled(.play) }, timeout: 30), "Play never appeared")
        window.activate(.play)
        let player = { window.playback.player }
        #expect(GtkHarness.iterate(until: { player()?.state == .playing }, timeout: 20))
        try RealInput.key("Right") // ahead, where nothing is on disk yet
        #expect(GtkHarness.iterate(until: { (player().map { !$0.isSeeking && ($0.position ?? 0) >= 5 }) == true }, timeout: 30),
                "the seek ahead never played: \(String(describing: player()?.position))")
        // What a person sees: the picture from there, the seek bar with the parts on disk.
        GtkHarness.iterate(until: { (window.playback.view.controls.downloadedParts.parts?.count ?? 0) >= 2 }, timeout: 5)
        GtkHarness.screenshot(window.widget, "watching-presentation")
        try RealInput.key("alt+Left")
        #expect(GtkHarness.iterate(until: { window.visiblePage == "download" }, timeout: 5))
        // Leaving the video page paused it there.
        let left = try #require(player()?.position)
        window.activate(.pause)
        #expect(GtkHarness.iterate(until: { window.downloadPage.store?.state == .paused }, timeout: 10))
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
        #expect(GtkHarness.iterate(until: { again.isEnabled(.continue) }, timeout: 10))
        again.activate(.continue)
        #expect(GtkHarness.iterate(until: { again.isEnabled(.play) }, timeout: 30))
        again.activate(.play)
        #expect(GtkHarness.iterate(until: { again.playback.resumedFrom != nil }, timeout: 10))
        #expect(again.playback.resumedFrom.map { abs($0 - left) < 0.5 } == true, "resumed from \(String(describing: again.playback.resumedFrom)), left at \(left)")
        #expect(GtkHarness.iterate(until: { (again.playback.player?.position ?? 0) >= left + 0.5 }, timeout: 30),
                "it did not play on from \(left): \(String(describing: again.playback.player?.position))")
        #expect(GtkHarness.iterate(until: { again.downloadPage.store?.state.completedPath != nil }, timeout: 90),
                "the download did not finish: \(String(describing: again.downloadPage.store?.state))")
    }
}

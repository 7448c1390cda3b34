import CGtk
import FetchCore
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A downloaded video keeps where it was left in its own record (not in positions.json), driven
/// with real keys: Play, Space, Right, Alt+Left.
@Suite(.serialized) @MainActor
struct PlaybackPositionTests {
    @Test(arguments: [(1.0, 60.0, false), (3, 60, true), (30, 60, true), (58, 60, false), (100, nil, true)] as [(Double, Double?, Bool)])
    func worthResuming(position: Double, duration: Double?, expected: Bool) {
        #expect(PlaybackPositions.isWorthResuming(position, duration: duration) == expected)
    }

    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-position")
    }

    func state(_ window: MainWindow) -> PlayerState? { window.playback.player?.state }

    @Test func aDownloadedVideoKeepsItsPositionInItsRecord() throws {
        let clip = try Clips.webm(seconds: 12, audio: false)
        server.serve("/long.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"l\"")
        let url = server.url("/long.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.downloadPage.isPlayVisible }))
        runMainLoop(timeout: .seconds(10), until: { window.library?.store.item(url: url)?.isComplete == true })
        #expect(runMainLoop(timeout: .seconds(3), until: { gtk_revealer_get_child_revealed(window.ui.playRevealer.opaque) != 0 }))

        try RealInput.key("Return") // the focus is on Play
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }),
                "Enter on Play did not play; focus on \(RealInput.describeFocus(window)), \(String(describing: state(window))) page \(window.visiblePage)")
        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }))
        try RealInput.key("Right")
        #expect(runMainLoop(timeout: .seconds(5), until: {
            (window.playback.player.map { !$0.isSeeking && ($0.position ?? 0) >= 5 }) == true
        }))
        try RealInput.key("alt+Left")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        window.playback.positions?.flush()

        let item = try #require(Library(cache: try Cache(root: cache.path)).reload().first { $0.url == url })
        let position = try #require(item.position, "the record has no position")
        #expect(position >= 5 && position < 6.5)
        let table = FileManager.default.contents(atPath: cache.file("positions.json")).flatMap {
            try? JSONDecoder().decode([String: Double].self, from: $0)
        } ?? [:]
        #expect(table[item.path] == nil, "the library's video went into positions.json")
        GtkHarness.close(window)

        // The next run resumes there.
        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        again.downloadPage.urlText = url
        #expect(runMainLoop(timeout: .seconds(10), until: { again.isEnabled(.play) }))
        runMainLoop(timeout: .seconds(10), until: { again.library?.store.item(url: url) != nil })
        again.activate(.play)
        #expect(runMainLoop(timeout: .seconds(10), until: { again.playback.resumedFrom != nil }))
        #expect(again.playback.resumedFrom.map { abs($0 - position) < 0.2 } == true)
    }

    @Test func closingTheWindowWhilePlayingKeepsThePosition() throws {
        let clip = try Clips.webm(seconds: 12, audio: false)
        server.serve("/closing.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"c\"")
        let url = server.url("/closing.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.isEnabled(.play) }))
        runMainLoop(timeout: .seconds(10), until: { window.library?.store.item(url: url)?.isComplete == true })
        window.activate(.play)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))
        try RealInput.key("Right")
        #expect(runMainLoop(timeout: .seconds(5), until: {
            (window.playback.player.map { !$0.isSeeking && ($0.position ?? 0) >= 5 }) == true
        }))
        try RealInput.key("ctrl+w") // still playing
        #expect(runMainLoop(timeout: .seconds(5), until: { !GtkHarness.isToplevel(window) }))
        // The position is written on the records' worker: read until it is there.
        let cache = try Cache(root: cache.path)
        var position: Double?
        #expect(runMainLoop(timeout: .seconds(5), until: {
            position = Library(cache: cache).reload().first { $0.url == url }?.position
            return (position ?? 0) >= 5
        }), "closing while playing lost the position: \(String(describing: position))")
    }
}

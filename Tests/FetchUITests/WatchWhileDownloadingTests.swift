import CGtk
import FetchCore
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// Watching while it downloads, in the real window with real clicks: Play is offered before the
/// checkmark, the video plays from the partial, the seek bar shows the downloaded parts, a click
/// far ahead on the seek bar makes the download fetch that part next (the server sees the range),
/// and the finished file is exact.
@Suite(.serialized) @MainActor
struct WatchWhileDownloadingTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-watch")
    }

    func downloading(_ window: MainWindow) -> Bool { window.store?.state == .downloading }

    @Test func playBeforeTheCheckmarkThenSeekAheadFetchesThatPartFirst() throws {
        let clip = try Clips.webm(seconds: 12, width: 640, height: 360, audio: false)
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: clip)))
        // About the clip's bitrate: twelve seconds to arrive whole, so there is time to seek ahead.
        server.serve("/watch.webm", body: body, etag: "\"w\"", faults: [.throttle(bytesPerSecond: body.count / 12)],
                     faultyRequests: nil)
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = server.url("/watch.webm")
        window.activate(.start)

        // Play shows up while the ring still fills.
        #expect(runMainLoop(timeout: .seconds(15), until: { window.downloadPage.isPlayVisible }), "Play never came before the end")
        try #require(downloading(window), "the download ended before Play was offered")
        runMainLoop(timeout: .seconds(3), until: { gtk_revealer_get_child_revealed(window.ui.playRevealer.opaque) != 0 })
        try RealInput.click(window.ui.playButton)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "video" }))
        let player = try #require(window.playback.player)
        #expect(runMainLoop(timeout: .seconds(15), until: { player.currentFrame != nil || player.state.isFailed }),
                "no first frame")
        #expect(!player.state.isFailed, "the player failed: \(player.state)")
        #expect(downloading(window), "the first frame came only after the whole file")

        // The seek bar's line shows what is on disk: a start, not the whole.
        let controls = window.playback.view.controls
        #expect(runMainLoop(timeout: .seconds(5), until: { controls.downloadedParts.parts?.isEmpty == false }))
        let parts = controls.downloadedParts.parts ?? []
        #expect(parts.first?.lowerBound == 0 && parts.reduce(0) { $0 + $1.upperBound - $1.lowerBound } < 0.8,
                "parts: \(parts)")
        screenshot(window, "watch-while-downloading")

        // A click at 80% of the seek bar: the download jumps there, the picture follows.
        let duration = try #require(runMainLoop(timeout: .seconds(5), until: { player.duration != nil }) ? player.duration : nil)
        let requestsBefore = server.requests(to: "/watch.webm").count
        window.playback.view.revealBars()
        let rect = controls.downloadedParts.lineRect
        try RealInput.click(controls.seekBar, at: (Double(rect.origin.x) + Double(rect.size.width) * 0.8,
                                                   Double(gtk_widget_get_height(controls.seekBar)) / 2))
        let ahead = Int64(Double(body.count) * 0.6)
        #expect(runMainLoop(timeout: .seconds(10), until: {
            server.requests(to: "/watch.webm").dropFirst(requestsBefore).contains { request in
                Self.rangeStart(request["range"]).map { $0 >= ahead } ?? false
            }
        }), "no range request ahead: \(server.requests(to: "/watch.webm").map { $0["range"] ?? "-" })")
        // The picture from there comes while a part before it is still missing: the seek did
        // not wait for the bytes in between.
        var partsAtFrame: [ClosedRange<Double>]?
        #expect(runMainLoop(timeout: .seconds(15), until: {
            guard (window.playback.view.currentFrame?.timestamp ?? 0) >= duration * 0.7 else { return false }
            partsAtFrame = window.store?.url.flatMap { window.store?.queue.board(for: $0)?.coverage.fractions }
            return true
        }), "no picture from 80%: at \(window.playback.view.currentFrame?.timestamp ?? -1) of \(duration)")
        #expect((partsAtFrame?.count ?? 0) >= 2, "nothing was missing before the picture: \(partsAtFrame ?? [])")

        // The download completes under the playing video: the line goes, the file is exact.
        #expect(runMainLoop(timeout: .seconds(30), until: { window.store?.state.completedPath != nil }))
        let path = try #require(window.store?.state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        #expect(runMainLoop(timeout: .seconds(5), until: { controls.downloadedParts.parts == nil }))
        #expect(!player.state.isFailed)
    }

    /// The first offset of a `Range: bytes=N-` header.
    static func rangeStart(_ header: String?) -> Int64? {
        guard let header, header.hasPrefix("bytes=") else { return nil }
        return Int64(header.dropFirst(6).prefix { $0.isNumber })
    }

    func screenshot(_ window: MainWindow, _ name: String) {
        _ = GtkHarness.screenshot(window.widget, name)
    }
}

extension PlayerState {
    var isFailed: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// A partial left by an earlier run plays offline in a new window, up to where its bytes end,
/// and then says so.
@Suite(.serialized) @MainActor
struct OfflinePartialWindowTests {
    @Test func aPausedPartialPlaysOfflineNextTimeThenSaysWhatIsMissing() throws {
        let server = try FaultServer()
        let cache = try TemporaryDirectory(prefix: "fetchplay-offline")
        let clip = try Clips.webm(seconds: 10, width: 640, height: 360, audio: false)
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: clip)))
        // The end (the index) and the first half, then nothing: the part after the middle stays
        // missing, whatever the timing.
        server.serve("/half.webm", body: body, etag: "\"h\"")
        server.hold("/half.webm", offsets: (body.count / 2)..<(body.count - 64 * 1024))
        let url = server.url("/half.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(15), until: { (window.store?.progress?.bytesDone ?? 0) >= Int64(body.count * 2 / 5) }),
                "at \(window.store?.progress?.bytesDone ?? -1) of \(body.count): \(window.store?.url.flatMap { window.store?.queue.board(for: $0)?.coverage.spans } ?? [])")
        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .paused }))
        GtkHarness.close(window)
        server.stop()

        let again = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        again.downloadPage.urlText = url
        #expect(runMainLoop(timeout: .seconds(10), until: { again.downloadPage.isPlayVisible }), "no Play for the partial offline")
        again.activate(.play)
        let player = try #require(again.playback.player)
        #expect(runMainLoop(timeout: .seconds(10), until: { player.currentFrame != nil }), "nothing played offline")
        #expect(runMainLoop(timeout: .seconds(20), until: { player.state.isFailed }), "it never said what is missing")
        #expect(again.playback.view.errorMessage == "This part is not downloaded yet.",
                "said: \(again.playback.view.errorMessage ?? "nothing")")
        #expect(again.store?.state.completedPath == nil && again.store?.hasPartial == true, "the partial is still a partial")
    }
}

import FetchCore
import FetchPlayer
@testable import FetchUI
import Foundation
import Testing
import TestSupport

/// A video that plays while it downloads: the player reads the partial through the engine as the
/// bytes arrive from a throttled server (about twice the clip's bitrate).
///
/// The server holds back the file's middle (from 30% to 95%) until the first frame: a player that
/// needed more than the start and the end (a WebM's index) would show nothing, however fast or
/// slow the machine is.
@MainActor
@Suite(.serialized)
struct StreamPlaybackTests {
    @Test func theFirstFrameComesBeforeAThirdOfTheBytesAndTheFileEndsExact() throws {
        let clip = try Clips.webm(seconds: 8, width: 640, height: 360)
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: clip)))
        let server = try FaultServer()
        // The clip's bitrate is body / 8 s; twice that is body / 4 per second.
        server.serve("/live.webm", body: body, etag: "\"s\"", faults: [.throttle(bytesPerSecond: body.count / 4)],
                     faultyRequests: nil)
        let held = Int(Double(body.count) * 0.3)..<Int(Double(body.count) * 0.95)
        server.hold("/live.webm", offsets: held)
        let folder = try TemporaryDirectory(prefix: "fetchplay-stream")
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1)
        let url = try queue.add(server.url("/live.webm")).url
        let board = try #require(queue.board(for: url))
        defer { queue.pause(url) }

        // As the window does: Play once the video's start is on disk.
        #expect(GtkHarness.iterate(until: { board.coverage.canStartPlaying }, timeout: 10))
        let player = Player(audio: .none)
        player.open(source: DownloadStream(board: board), title: "live.webm")
        var arrivedAtFirstFrame: Int64?
        #expect(GtkHarness.iterate(until: {
            if player.currentFrame != nil, arrivedAtFirstFrame == nil { arrivedAtFirstFrame = queue.entry(url)?.progress.bytesDone }
            if case .failed = player.state { return true }
            return arrivedAtFirstFrame != nil
        }, timeout: 20), "no first frame")
        if case .failed(let error) = player.state { Issue.record("the player failed: \(error.message)") }
        let fraction = Double(arrivedAtFirstFrame ?? Int64(body.count)) / Double(body.count)
        #expect(fraction <= 0.35, "the first frame came after \(Int(fraction * 100))% of the bytes")
        #expect(server.bytesSent(of: "/live.webm") <= body.count - held.count)

        server.release("/live.webm")
        player.play()
        #expect(GtkHarness.iterate(until: { queue.entry(url)?.state.completedPath != nil }, timeout: 30))
        let path = try #require(queue.entry(url)?.state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        player.close()
    }
}

import FetchCore
import FetchPlayer
@testable import FetchUI
import Foundation
import Testing
import TestSupport

/// A video that plays while it downloads: the player reads the partial through the engine as the
/// bytes arrive from a throttled server (about twice the clip's bitrate).
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
        let folder = try TemporaryDirectory(prefix: "fetchplay-stream")
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1)
        let url = try queue.add(server.url("/live.webm")).url
        let board = try #require(queue.board(for: url))
        defer { queue.pause(url) }

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
        #expect(fraction < 0.3, "the first frame came after \(Int(fraction * 100))% of the bytes")

        player.play()
        #expect(GtkHarness.iterate(until: { queue.entry(url)?.state.completedPath != nil }, timeout: 30))
        let path = try #require(queue.entry(url)?.state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        player.close()
    }
}

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
        let held = Int(Double(body.count) * 0.3)..<Int(Double(body.count) * 0.95)
        let stream = try firstFrame(of: body, at: "/live.webm", holding: held)
        #expect(stream.fraction <= 0.35, "the first frame came after \(Int(stream.fraction * 100))% of the bytes")

        stream.server.release("/live.webm")
        stream.player.play()
        #expect(runMainLoop(timeout: .seconds(30), until: { stream.queue.entry(stream.url)?.state.completedPath != nil }))
        let path = try #require(stream.queue.entry(stream.url)?.state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        stream.player.close()
    }

    /// A video streaming from a server sending twice its bitrate (the clip is 8 s: body / 4 a
    /// second) that holds back `held` until released, played once its start is on disk, as the
    /// window does; returns once the first frame came (or the player failed), with the share of
    /// the bytes on disk then. The server sent nothing of `held`.
    private func firstFrame(of body: [UInt8], at path: String, holding held: Range<Int>) throws -> Streamed {
        let server = try FaultServer()
        server.serve(path, body: body, etag: "\"s\"", faults: [.throttle(bytesPerSecond: body.count / 4)],
                     faultyRequests: nil)
        server.hold(path, offsets: held)
        let folder = try TemporaryDirectory(prefix: "fetchplay-stream")
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1)
        let url = try queue.add(server.url(path)).url
        let board = try #require(queue.board(for: url))
        #expect(runMainLoop(timeout: .seconds(10), until: { board.coverage.canStartPlaying }))
        let player = Player(audio: .none)
        player.open(source: DownloadStream(board: board), title: String(path.dropFirst()))
        var arrivedAtFirstFrame: Int64?
        #expect(runMainLoop(timeout: .seconds(20), until: {
            if player.currentFrame != nil, arrivedAtFirstFrame == nil { arrivedAtFirstFrame = queue.entry(url)?.progress.bytesDone }
            if case .failed = player.state { return true }
            return arrivedAtFirstFrame != nil
        }), "no first frame")
        if case .failed(let error) = player.state { Issue.record("the player failed: \(error.message)") }
        #expect(server.bytesSent(of: path) <= body.count - held.count)
        let fraction = Double(arrivedAtFirstFrame ?? Int64(body.count)) / Double(body.count)
        return Streamed(server: server, folder: folder, queue: queue, url: url, player: player, fraction: fraction)
    }

    /// What `firstFrame` set up; pauses the download when it goes.
    private final class Streamed {
        let server: FaultServer, folder: TemporaryDirectory, queue: DownloadQueue, url: String, player: Player
        let fraction: Double
        init(server: FaultServer, folder: TemporaryDirectory, queue: DownloadQueue, url: String, player: Player,
             fraction: Double) {
            (self.server, self.folder, self.queue, self.url, self.player, self.fraction) = (server, folder, queue, url, player, fraction)
        }
        deinit { queue.pause(url) }
    }

    /// An MP4 with its index at the end: the download fetches the tail right after the first
    /// boxes, so the first frame comes long before the middle has arrived.
    @Test func anMP4WithItsIndexAtTheEndStartsEarly() throws {
        let clip = try Clips.mp4IndexLast(seconds: 8)
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: clip)))
        let moov = try #require(Self.moovOffset(body))
        #expect(moov > Int64(body.count) * 9 / 10, "the clip's index is not at its end")
        // As for the WebM above: the middle waits until the first frame, which must come from
        // the start and the index alone. The first 20% and the last 10% may arrive before it,
        // however slow the player is: never more than 30%.
        let held = Int(Double(body.count) * 0.2)..<(body.count - body.count / 10)
        let stream = try firstFrame(of: body, at: "/tail.mp4", holding: held)
        let server = stream.server
        #expect(stream.fraction <= 0.3, "the first frame came after \(Int(stream.fraction * 100))% of the bytes")
        // The first range asked for is the index's, within a 64 KiB page of it.
        let starts = server.requests(to: "/tail.mp4").compactMap { request -> Int64? in
            guard let range = request["range"], range.hasPrefix("bytes=") else { return nil }
            return Int64(range.dropFirst(6).prefix { $0 != "-" })
        }
        #expect(starts.first.map { $0 <= moov && $0 > moov - (64 << 10) } == true, "range requests from \(starts)")
        server.release("/tail.mp4")
        stream.player.close()
    }

    /// Where the top-level `moov` box starts (32-bit box sizes, as mp4mux writes small files).
    static func moovOffset(_ bytes: [UInt8]) -> Int64? {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "moov" { return Int64(offset) }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    /// Half of an 8 s clip downloaded with one connection, then paused, the server gone; the
    /// cache opened again by a new queue as after a restart. Returns the queue, the URL and the
    /// share of the bytes on disk.
    private func halfDownloadedOffline() throws -> (DownloadQueue, String, Double, TemporaryDirectory) {
        let clip = try Clips.webm(seconds: 8, width: 640, height: 360)
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: clip)))
        let server = try FaultServer()
        server.serve("/half.webm", body: body, etag: "\"h\"", faults: [.throttle(bytesPerSecond: body.count / 4)],
                     faultyRequests: nil)
        let folder = try TemporaryDirectory(prefix: "fetchplay-offline")
        let cache = try Cache(root: folder.file("cache"))
        var options = DownloadOptions()
        options.connections = 1 // one range from the start: the hole is everything after it
        options.checkpointInterval = 0.2
        let first = DownloadQueue(cache: cache, maxRunning: 1, options: options)
        let url = try first.add(server.url("/half.webm")).url
        #expect(runMainLoop(timeout: .seconds(20), until: { (first.entry(url)?.progress.bytesDone ?? 0) >= Int64(body.count / 2) }))
        first.pause(url)
        #expect(runMainLoop(timeout: .seconds(10), until: { first.entry(url)?.state == .paused }))
        server.stop()

        let queue = DownloadQueue(cache: cache, maxRunning: 1, options: options)
        _ = try queue.add(url, start: false)
        // The new queue reads the cache in the background; the window plays a partial only once
        // its board says it can (before that it holds no byte, and playing it fails as damaged).
        let board = try #require(queue.board(for: url))
        #expect(runMainLoop(timeout: .seconds(10), until: { board.coverage.canStartPlaying }))
        #expect(runMainLoop(timeout: .seconds(10), until: { (queue.entry(url)?.progress.bytesDone ?? 0) > 0 }))
        let onDisk = try #require(queue.entry(url)?.progress.bytesDone)
        #expect(onDisk >= Int64(body.count / 2) && onDisk < Int64(body.count), "\(onDisk) of \(body.count) bytes on disk")
        return (queue, url, Double(onDisk) / Double(body.count), folder)
    }

    private func failed(_ player: Player) -> Bool {
        if case .failed = player.state { true } else { false }
    }

    /// Played offline, it plays up to where its bytes end and then says so, never hanging.
    @Test func aPartialPlayedOfflinePlaysUpToItsHoleAndThenSaysSo() throws {
        let (queue, url, share, folder) = try halfDownloadedOffline()
        defer { _ = folder }
        let player = Player(audio: .none)
        var lastTimestamp = 0.0
        player.observeFrames { lastTimestamp = max(lastTimestamp, $0.timestamp ?? 0) }
        player.open(source: DownloadStream(board: try #require(queue.board(for: url))), title: "half.webm")
        player.play()
        #expect(runMainLoop(timeout: .seconds(20), until: { failed(player) }), "still \(player.state)")
        #expect(player.state == .failed(.notDownloaded))
        if case .failed(let error) = player.state { #expect(error.message == "This part is not downloaded yet.") }
        // The bytes on disk hold about that share of the 8 s; it played (nearly) all of it.
        #expect(lastTimestamp > 8 * share - 1.5, "played to \(lastTimestamp) s of about \(8 * share) s on disk")
        player.close()
    }

    /// A seek into the part not downloaded, paused: said at once, not a hang or an old frame.
    @Test func aSeekOfflineIntoThePartNotDownloadedSaysSo() throws {
        let (queue, url, share, folder) = try halfDownloadedOffline()
        defer { _ = folder }
        let player = Player(audio: .none)
        player.open(source: DownloadStream(board: try #require(queue.board(for: url))), title: "half.webm")
        #expect(runMainLoop(timeout: .seconds(20), until: { player.state == .paused }), "\(player.state)")
        player.seek(to: 8 * share / 2, accurate: true) // on disk: fine
        #expect(runMainLoop(timeout: .seconds(10), until: { !player.isSeeking }))
        #expect(player.state == .paused)
        player.seek(to: 7.5, accurate: true)
        #expect(runMainLoop(timeout: .seconds(20), until: { failed(player) }), "still \(player.state)")
        #expect(player.state == .failed(.notDownloaded))
        player.close()
    }
}

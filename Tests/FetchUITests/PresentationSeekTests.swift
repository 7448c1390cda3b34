import FetchCore
@testable import FetchPlayer
@testable import FetchUI
import Foundation
import Testing
import TestSupport

/// Watching a DASH presentation while it arrives slowly: a seek ahead makes the segments there
/// come next, and a pause of the download lets the player play what is on disk, then wait
/// until Continue. The saved video is whole either way, every piece fetched once: one in flight at
/// a seek is held (its connection open) and goes on, one cut by a pause is continued from its
/// bytes.
@MainActor
@Suite(.serialized)
struct PresentationSeekTests {
    /// 12 s in 1 s segments, the media sent at 400 kB/s a connection: about half a second a
    /// video segment, so the download is far from the end when the player starts.
    @MainActor
    struct Watched {
        let clip: DASHClip
        let server: FaultServer
        let queue: DownloadQueue
        let url: String
        let board: DownloadBoard
        let player: Player
        let folder: TemporaryDirectory

        /// Every media file of the presentation and its bytes.
        var media: [String: [UInt8]] { clip.files.filter { HeldSegments.isMedia($0.key) } }

        init() throws {
            clip = try Clips.dashLecture()
            server = try FaultServer()
            clip.serve(on: server, mediaBytesPerSecond: 400_000)
            folder = try TemporaryDirectory(prefix: "fetchplay-seek")
            var options = DownloadOptions()
            options.presentations = .gstreamer
            // One connection: what it fetches next is the order the viewer asked for.
            options.connections = 1
            options.growConnections = false
            queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1, options: options)
            url = try queue.add(server.url("/lecture/index.mpd")).url
            board = try #require(queue.board(for: url))
            let board = board, queue = queue, url = url
            #expect(runMainLoop(timeout: .seconds(30), until: { board.stream?.canStartPlaying == true || PresentationWatchTests.failed(queue.entry(url)?.state) }), "never ready to play: \(String(describing: queue.entry(url)?.state))")
            player = Player(audio: .none)
            player.open(watching: try WatchServer(board: board), title: "lecture")
            let player = player
            #expect(runMainLoop(timeout: .seconds(30), until: { player.currentFrame != nil || PresentationSeekTests.isFailed(player.state) }), "no first frame")
        }

        /// Waits for the download to end; the saved video, checked whole: both tracks, every
        /// video frame of the 12 s, a clean decode, and every media piece asked for once and sent
        /// once. After a `pause`, a piece it cut short is asked again only from the bytes it has,
        /// with `If-Range`; the bytes the server had sent but the client had not read when it
        /// let go are the only ones sent twice.
        func savedWhole(pause: Bool = false) throws {
            let queue = queue, url = url
            #expect(runMainLoop(timeout: .seconds(90), until: { queue.entry(url)?.state.completedPath != nil || PresentationWatchTests.failed(queue.entry(url)?.state) }))
            let saved = try #require(queue.entry(url)?.state.completedPath, "ended \(String(describing: queue.entry(url)?.state))")
            for (path, body) in media {
                let asked = server.requests(to: "/" + path)
                if !pause {
                    #expect(asked.count == 1 && server.bytesSent(of: "/" + path) == body.count,
                            "\(path) asked \(asked.count) times, \(server.bytesSent(of: "/" + path)) of \(body.count) bytes sent")
                    continue
                }
                for again in asked.dropFirst() {
                    let from = again["range"].flatMap { Int($0.dropFirst("bytes=".count).prefix { $0.isNumber }) } ?? 0
                    #expect(from > 0 && again["if-range"] != nil, "\(path) was asked again from its start")
                }
                let extra = server.bytesSent(of: "/" + path) - body.count
                #expect(extra <= (asked.count - 1) * PresentationSeekTests.inFlight, "\(path): \(extra) bytes sent twice")
            }
            #expect(try FFprobe.decodeErrors(saved).isEmpty)
            let packets = try FFprobe.packets(saved)
            #expect(packets.first { $0.kind == "video" }?.count == 12 * 30, "\(packets)")
            #expect(packets.contains { $0.kind == "audio" }, "\(packets)")
            player.close()
        }
    }

    /// What a throttled answer may have in flight when the client lets go of it, at most.
    static let inFlight = 64 * 1024

    static func isFailed(_ state: PlayerState) -> Bool {
        if case .failed = state { return true }
        return false
    }

    @Test func aSeekAheadFetchesTheSegmentsThereNextAndShowsThem() throws {
        let watched = try Watched()
        let player = watched.player, server = watched.server
        let before = server.requests.count
        // 80 %: 9.6 s, in the tenth segment of each stream (9 s to 10 s).
        player.seek(to: 9.6, accurate: true)
        var waited = false
        #expect(runMainLoop(timeout: .seconds(30), until: {
            waited = waited || player.isBuffering
            return (player.currentFrame?.timestamp ?? 0) >= 9.5 || Self.isFailed(player.state)
        }), "no picture at 80 %: \(String(describing: player.currentFrame?.timestamp))")
        #expect(waited, "the player never said it was waiting for the segments there")
        // The segments there came next: among the first media asked for after the seek (the one
        // connection may have taken one more piece before the player asked for them), before
        // the seven seconds between. The picture needs only the video's: the audio's may be
        // asked for just after it shows.
        let there = ["/lecture/chunk-stream0-00010.m4s", "/lecture/chunk-stream1-00010.m4s"]
        #expect(runMainLoop(timeout: .seconds(30), until: { Set(server.requests.dropFirst(before).map(\.path)).isSuperset(of: there) }))
        let after = server.requests.dropFirst(before).map(\.path).filter { $0.contains("chunk-") }
        for stream in ["chunk-stream0-00010.m4s", "chunk-stream1-00010.m4s"] {
            #expect(after.prefix(4).contains("/lecture/" + stream), "\(stream) did not come next: \(after)")
        }
        player.play()
        try watched.savedWhole()
    }

    /// The speed works while watching as for a file: at 1.5× the position runs half as fast
    /// again as the pipeline's own clock (its running time), whatever the machine's pace.
    @Test func theSpeedHoldsWhileWatching() throws {
        let watched = try Watched()
        let player = watched.player
        player.rate = 1.5
        player.play()
        var start: (clock: Double, position: Double)?
        var speed: Double?
        #expect(runMainLoop(timeout: .seconds(30), until: {
            guard player.state == .playing, !player.isSeeking, !player.isBuffering,
                  let clock = player.runningTime, let position = player.position else {
                start = nil
                return Self.isFailed(player.state)
            }
            guard let first = start, clock >= first.clock else {
                start = (clock, position)
                return false
            }
            guard clock >= first.clock + 1 else { return false }
            speed = (position - first.position) / (clock - first.clock)
            return true
        }), "never a second of playing: \(player.state)")
        #expect(speed.map { abs($0 - 1.5) < 0.2 } == true, "played at \(String(describing: speed))")
        try watched.savedWhole()
    }

    @Test func aPauseWhileWatchingPlaysWhatIsOnDiskThenWaitsUntilContinue() throws {
        let watched = try Watched()
        let player = watched.player, queue = watched.queue, url = watched.url, board = watched.board
        player.play()
        #expect(runMainLoop(timeout: .seconds(30), until: { (player.position ?? 0) >= 0.5 || Self.isFailed(player.state) }))
        queue.pause(url)
        #expect(runMainLoop(timeout: .seconds(10), until: { queue.entry(url)?.state == .paused }),
                "\(String(describing: queue.entry(url)?.state))")
        // What every track has on disk, in seconds, once the pause has settled.
        let onDisk = (board.stream?.fractions.first?.upperBound ?? 0) * watched.clip.seconds
        #expect(onDisk < watched.clip.seconds, "the download ended before the pause")
        #expect(runMainLoop(timeout: .seconds(30), until: { player.isBuffering || Self.isFailed(player.state) }),
                "the player never waited at \(String(describing: player.position)) with \(onDisk) s on disk")
        let waitedAt = player.position ?? 0
        #expect(waitedAt <= onDisk + 0.5, "played to \(waitedAt) s with \(onDisk) s on disk")
        #expect(!PresentationSeekTests.isFailed(player.state))
        // Continue: the download goes on under the player, which plays on by itself.
        queue.start(url)
        #expect(runMainLoop(timeout: .seconds(30), until: { (player.position ?? 0) >= onDisk + 1.5 || Self.isFailed(player.state) }),
                "stuck at \(String(describing: player.position)) after Continue")
        try watched.savedWhole(pause: true)
    }
}

import FetchCore
import FetchPlayer
@testable import FetchUI
import Foundation
import Testing
import TestSupport

/// HLS and DASH presentations watched while they download: the player reads them through the
/// engine's watch server as their segments arrive from a real server.
///
/// The server holds back every media segment after each track's first until the first frame: a
/// player that needed more than the init sections and one segment per track (a third of the
/// presentation is more than that) would show nothing, however fast or slow the machine is. Then
/// it lets them go, and the video saved must be whole, every byte served once.
@MainActor
@Suite(.serialized)
struct PresentationWatchTests {
    /// The kinds of presentation: a link and the folder of its media on the server.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case hlsTransportStream, hlsFragmented, hlsSeparateAudio, hlsEncrypted, dashTemplateNumber, dashTimeline,
             dashSegmentList, dashSegmentBase

        var testDescription: String { rawValue }

        /// The link, and the media files' folders under the server's root.
        func link(hls: HLSClip, fragmented: HLSFragmentedClip, dash: DASHClip) -> (path: String, media: [String], files: [String: [UInt8]]) {
            switch self {
            case .hlsTransportStream: ("/v360/index.m3u8", ["v360/"], hls.files)
            case .hlsFragmented: ("/sep/index.m3u8", ["sep/"], fragmented.files)
            case .hlsSeparateAudio: ("/alt/master.m3u8", ["alt/video/", "alt/audio/"], fragmented.files)
            case .hlsEncrypted: ("/enc/index.m3u8", ["enc/"], hls.files)
            case .dashTemplateNumber: ("/num/index.mpd", ["num/"], dash.files)
            case .dashTimeline: ("/tl/index.mpd", ["tl/"], dash.files)
            case .dashSegmentList: ("/single/index.mpd", ["single/"], dash.files)
            case .dashSegmentBase: ("/base/index.mpd", ["base/media/"], dash.files)
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func thePictureComesBeforeAThirdOfTheSegmentsAndTheVideoIsSavedWhole(_ kind: Kind) throws {
        let hls = try Clips.hls(), fragmented = try Clips.fragmentedHLS(), dash = try Clips.dash()
        let link = kind.link(hls: hls, fragmented: fragmented, dash: dash)
        let server = try FaultServer()
        // HLS TS and its encrypted copy share a clip, the fMP4 kinds theirs: each serves its own.
        for (path, body) in link.files {
            let type = path.hasSuffix(".mpd") ? [HTTPHeader("Content-Type", "application/dash+xml")] : []
            server.serve("/" + path, body: body, etag: "\"\(path.hashValue & 0xFFFF_FFFF)\"", headers: type)
        }
        // ffmpeg writes a last audio chunk past the fixed-duration manifest's end, which names
        // four segments: no player or download asks for it.
        let media = link.files.filter { file in
            link.media.contains { file.key.hasPrefix($0) } && HeldSegments.isMedia(file.key) && file.key != "num/chunk-stream1-00005.m4s"
        }
        let held = HeldSegments.heldBack(media)
        #expect(!held.isEmpty, "nothing of \(kind) is held back")
        for (path, range) in held { server.hold("/" + path, offsets: range) }

        let folder = try TemporaryDirectory(prefix: "fetchplay-watch")
        var options = DownloadOptions()
        options.presentations = .gstreamer
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1, options: options)
        let url = try queue.add(server.url(link.path)).url
        let board = try #require(queue.board(for: url))
        #expect(runMainLoop(timeout: .seconds(30), until: { board.stream?.canStartPlaying == true || Self.failed(queue.entry(url)?.state) }), "never ready to play: \(String(describing: queue.entry(url)?.state)) \(server.requests.map { "\($0.path) \($0["range"] ?? "")" })")
        let player = Player(audio: .none)
        player.open(watching: try WatchServer(board: board), title: "watched")
        #expect(runMainLoop(timeout: .seconds(30), until: {
            if case .failed = player.state { return true }
            return player.currentFrame != nil
        }), "no first frame")
        if case .failed(let error) = player.state { Issue.record("the player failed: \(error.message)") }
        // Nothing held back was sent before the picture came.
        for (path, range) in held {
            #expect(server.bytesSent(of: "/" + path) <= (media[path]?.count ?? 0) - range.count, "\(path) was sent before the picture")
        }

        for (path, _) in held { server.release("/" + path) }
        player.play()
        #expect(runMainLoop(timeout: .seconds(60), until: { queue.entry(url)?.state.completedPath != nil || Self.failed(queue.entry(url)?.state) }))
        let saved = try #require(queue.entry(url)?.state.completedPath, "ended \(String(describing: queue.entry(url)?.state))")
        // Every media byte served once at most (a file's tail after its last fragment, a
        // segment the manifest leaves out, are never asked for): nothing fetched twice for the
        // player; and what was held back came after all.
        for (path, body) in media {
            let sent = server.bytesSent(of: "/" + path)
            #expect(sent <= body.count, "\(path): \(sent) of \(body.count) bytes sent")
        }
        for (path, range) in held {
            #expect(server.bytesSent(of: "/" + path) >= range.upperBound - range.lowerBound, "\(path) never came")
        }
        #expect(try FFprobe.decodeErrors(saved).isEmpty)
        let kinds = try FFprobe.packets(saved).map(\.kind)
        #expect(kinds.contains("video") && kinds.contains("audio"), "\(kinds)")
        // The segments stay while the player reads them, and go with it.
        let segments = folder.file("cache/hls")
        player.close()
        #expect(runMainLoop(timeout: .seconds(10), until: { ((try? FileManager.default.contentsOfDirectory(atPath: segments)) ?? []).isEmpty }))
    }

    /// A DASH presentation's WebVTT subtitles show while it downloads, as a file's beside it do:
    /// fetched once, before the segments, and kept for the saved video too.
    @Test func subtitlesShowWhileWatching() throws {
        let clip = try Clips.dash()
        let server = try FaultServer()
        clip.serve(on: server, mediaBytesPerSecond: 30_000)
        let vtt = clip.serveSubtitled(on: server)
        let folder = try TemporaryDirectory(prefix: "fetchplay-watch-subtitles")
        var options = DownloadOptions()
        options.presentations = .gstreamer
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1, options: options)
        let url = try queue.add(server.url("/tl/subtitled.mpd")).url
        let board = try #require(queue.board(for: url))
        #expect(runMainLoop(timeout: .seconds(30), until: { board.stream?.canStartPlaying == true || Self.failed(queue.entry(url)?.state) }))
        let player = Player(audio: .none)
        player.open(watching: try WatchServer(board: board), title: "subtitled")
        #expect(runMainLoop(timeout: .seconds(30), until: { !player.subtitleTracks.isEmpty || Self.isFailed(player.state) }),
                "no subtitles listed: \(player.state)")
        let index = try #require(player.subtitleTracks.firstIndex { $0.file != nil }, "\(player.subtitleTracks)")
        player.selectSubtitleTrack(index)
        player.play()
        #expect(runMainLoop(timeout: .seconds(30), until: { (player.position ?? 0) >= 1 || Self.isFailed(player.state) }))
        #expect(player.subtitleTrack == index && !Self.isFailed(player.state), "\(String(describing: player.subtitleTrack)) \(player.state)")
        #expect(queue.entry(url)?.state.completedPath == nil, "the download ended before the subtitles were seen")
        #expect(runMainLoop(timeout: .seconds(60), until: { queue.entry(url)?.state.completedPath != nil || Self.failed(queue.entry(url)?.state) }))
        let saved = try #require(queue.entry(url)?.state.completedPath)
        #expect(FileManager.default.contents(atPath: (saved as NSString).deletingPathExtension + ".en.vtt") == Data(vtt))
        #expect(server.requests(to: "/tl/subs/en.vtt").count == 1, "the subtitles were fetched twice")
        player.close()
    }

    static func isFailed(_ state: PlayerState) -> Bool {
        if case .failed = state { return true }
        return false
    }

    static func failed(_ state: DownloadState?) -> Bool {
        if case .failed = state { return true }
        return false
    }
}

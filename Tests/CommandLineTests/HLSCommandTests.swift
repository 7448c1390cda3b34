import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` on HLS links, as the real binary: a master or media playlist becomes
/// one MP4 that GStreamer's discoverer reads with the right duration and size; faults, signals
/// and refusals end as the engine's do.
struct HLSCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    let clip: HLSClip
    var cacheDir: String { fixture.cacheDir }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-cli-hls")
        clip = try Clips.hls()
        clip.serve(on: server)
    }

    private func download(_ url: String, _ extra: [String] = [], name: String = "run") throws -> FetchplayProcess {
        try fixture.download(url, name: name, extra)
    }

    /// An MP4 under the link's name in the videos folder, as a player sees it.
    private func expectVideo(_ run: FetchplayProcess, height: Int, name: String = "index.mp4") throws {
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix(cacheDir + "/videos/") && path.hasSuffix("/" + name), "\(path)")
        let media = try DiscoveredMedia.probe(path)
        #expect(abs(media.duration - clip.seconds) < 0.25, "duration \(media.duration)")
        #expect(media.height == height)
        #expect(media.seekable)
    }

    /// The remux's file is the owner's alone like every file of the cache (the muxer's sink
    /// would make it by the umask, 0644): 0600 as it stays in `CACHE/videos`.
    @Test func aSavedPresentationInTheCacheIsTheOwnersAlone() throws {
        let run = try download(server.url("/v360/index.m3u8"))
        try expectVideo(run, height: 360)
        let path = try #require(run.lastLine)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
    }

    @Test func masterPlaylistFromNginxSavesTheBestVariant() throws {
        let nginx = try Nginx(serving: clip.folder)
        defer { nginx.stop() }
        let run = try download(nginx.url("/master.m3u8"))
        try expectVideo(run, height: 720, name: "master.mp4")
        #expect(fixture.finishedSegments().isEmpty, "the presentation's folder is gone once the video is whole")
    }

    @Test func anAudioRenditionOfItsOwnIsMuxedWithTheVideo() throws {
        let nginx = try Nginx(serving: clip.folder)
        defer { nginx.stop() }
        let run = try download(nginx.url("/alt/master.m3u8"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        let media = try DiscoveredMedia.probe(path)
        // The variant has no audio of its own: the one in the file is the rendition's.
        #expect(media.videoStreams == 1 && media.audioStreams == 1, "\(media)")
        #expect(abs(media.duration - clip.seconds) < 0.25, "duration \(media.duration)")
        #expect(media.height == 360)
        #expect(media.seekable)
        #expect(try DiscoveredMedia.probe(clip.folder + "/alt/video/seg00000.ts").audioStreams == 0)
    }

    @Test func theDefaultAudioRenditionIsTheOneFetched() throws {
        let run = try download(server.url("/alt/master.m3u8"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        // English is DEFAULT=YES; French, listed first, and the subtitles are never asked for.
        for segment in clip.segments(of: "alt/audio") + clip.segments(of: "alt/video") {
            #expect(server.requests(to: "/" + segment).count == 1, "\(segment)")
        }
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/alt/audio-fr/") && !$0.path.hasPrefix("/alt/subs/") })
        let media = try DiscoveredMedia.probe(try #require(run.lastLine))
        #expect(media.audioStreams == 1 && media.videoStreams == 1)
    }

    @Test func aPlaylistKnownByItsAnswerAndAChosenQuality() throws {
        // No .m3u8 in the link: the engine's first bytes (#EXTM3U) hand it to HLS.
        server.serve("/watch", body: clip.files["master.m3u8"]!)
        server.serve("/v360/index.m3u8", body: clip.files["v360/index.m3u8"]!)
        let run = try download(server.url("/watch"), ["--quality", "360p"])
        // The variant's relative links resolve against /watch's folder: /v360/…
        try expectVideo(run, height: 360, name: "watch.mp4")
        #expect(server.requests(to: "/v720/index.m3u8").isEmpty)
    }

    @Test func anEncryptedPlaylistDecryptsWithAES128() throws {
        let run = try download(server.url("/enc/index.m3u8"))
        try expectVideo(run, height: 360)
    }

    @Test func aMissingSegmentIsRetriedThenFailsKeepingTheOthers() throws {
        let missing = "/" + clip.segments(of: "v360")[2]
        server.serve(missing, body: [], faults: [.status(404)])
        let url = server.url("/v360/index.m3u8")
        let first = try download(url, name: "first")
        #expect(first.status == 3, "stderr: \(first.standardError)")
        #expect(first.standardError.contains("404"))
        #expect(first.standardOutput.isEmpty)
        #expect(server.requests(to: missing).count == 3)
        #expect(fixture.finishedSegments().count == clip.segments(of: "v360").count - 1)
        // Listed as a partial: the finished segments' bytes, no total yet, the presentation's folder.
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(list.status == 0)
        let kept = clip.segments(of: "v360").filter { "/" + $0 != missing }.reduce(0) { $0 + clip.files[$1]!.count }
        let fields = list.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(fields.count == 1 && fields.first?.count == 4, "\(list.standardOutput)")
        #expect(fields.first?[0] == "partial" && fields.first?[1] == "\(kept)/?" && fields.first?[3] == url)
        #expect(fields.first?[2].hasPrefix(cacheDir + "/hls/") == true)
        #expect(!list.standardError.contains("skipping"), "\(list.standardError)")

        // Once the segment is there, only it is fetched.
        server.serve(missing, body: clip.files[String(missing.dropFirst())]!, etag: "\"fixed\"")
        let second = try download(url, name: "second")
        try expectVideo(second, height: 360)
        for segment in clip.segments(of: "v360") where "/" + segment != missing {
            #expect(server.requests(to: "/" + segment).count == 1, "\(segment)")
        }
        #expect(server.requests(to: missing).count == 4)
    }

    @Test func sigintHalfWayThenAResumeFetchesNoFinishedSegmentAgain() throws {
        let segments = clip.segments(of: "v360")
        // The first two finish; from the third on each stops half-way until the process is gone,
        // however late the signal comes.
        for (index, segment) in segments.enumerated() {
            let body = clip.files[segment]!
            server.serve("/" + segment, body: body, etag: "\"s\(index)\"")
            if index >= 2 { server.hold("/" + segment, offsets: body.count / 2..<body.count) }
        }
        let url = server.url("/v360/index.m3u8")
        let run = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { fixture.finishedSegments().count >= 2 })
        run.send(SIGINT)
        #expect(run.waitForExit(timeout: .seconds(5)))
        #expect(run.status == 128 + SIGINT, "stderr: \(run.standardError)")
        for segment in segments.dropFirst(2) { server.release("/" + segment) }
        let done = fixture.finishedSegments().count
        #expect(done == 2)
        let before = segments.map { server.requests(to: "/" + $0).count }

        let second = try download(url, name: "second")
        try expectVideo(second, height: 360)
        let after = segments.map { server.requests(to: "/" + $0).count }
        // The first two finished before the signal: never asked for again.
        #expect(after[0] == 1 && after[1] == 1)
        // Each unfinished one was asked for again, from where it stopped when bytes were kept.
        #expect(zip(before, after).dropFirst(2).allSatisfy { $1 == $0 + 1 })
        #expect(after.reduce(0, +) == before.reduce(0, +) + segments.count - done)
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let playlist: String
        let words: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        Refused(name: "live", playlist: "live", words: "live stream"),
        Refused(name: "SAMPLE-AES", playlist: "#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n#EXTINF:1,\nv360/seg00000.ts\n#EXT-X-ENDLIST\n",
                words: "DRM (SAMPLE-AES)"),
        Refused(name: "invalid", playlist: "#EXTM3U\nv360/seg00000.ts\n#EXT-X-ENDLIST\n", words: "not valid"),
    ])
    func refusedPlaylistsKeepNothing(_ row: Refused) throws {
        let body = row.playlist == "live" ? clip.livePlaylist : Array(row.playlist.utf8)
        server.serve("/stream.m3u8", body: body)
        let run = try download(server.url("/stream.m3u8"))
        #expect(run.status == 7)
        #expect(run.standardError.contains(row.words), "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        let videos = (try? FileManager.default.contentsOfDirectory(atPath: cacheDir + "/videos")) ?? []
        let presentations = (try? FileManager.default.contentsOfDirectory(atPath: cacheDir + "/hls")) ?? []
        #expect(videos.isEmpty && presentations.isEmpty)
        #expect(server.requests.allSatisfy { !$0.path.hasSuffix(".ts") })
    }
}

import Foundation
import Testing
import TestSupport

/// `fetchplay --download PAGE` for pages only yt-dlp reads: a real yt-dlp (installed by the
/// managed path once per run) finds the media, Fetchplay's engine fetches it from the test
/// server, which sees every request: DASH fragments each once, a progressive file over several
/// connections, a link that dies found again and continued, a playlist's entries, audio alone.
@Suite(.serialized) struct SiteDownloadCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-site-download")
    }

    /// A page whose video only a player script names (JW Player's setup), which the scanner
    /// cannot see and yt-dlp's generic extractor reads.
    static func playerPage(file: String, type: String, title: String) -> [UInt8] {
        Array("""
            <html><head><title>Player page</title></head><body><div id="player"></div>
            <script>jwplayer("player").setup({"file": "\(file)", "title": "\(title)", "type": "\(type)"});</script>
            </body></html>
            """.utf8)
    }

    private func serveDASHPage(_ path: String = "/watch/dash.html") throws -> DASHClip {
        let clip = try Clips.dash()
        clip.serve(on: server)
        server.serve(path, body: Self.playerPage(file: "/tl/index.mpd", type: "dash", title: "Harbour at dusk"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        return clip
    }

    /// `--download PAGE` with the run's managed yt-dlp.
    private func download(_ path: String, name: String = "run", _ arguments: [String] = []) throws -> FetchplayProcess {
        let site = try SiteSupportFixture.shared.get()
        return try FetchplayProcess.run(["--download", server.url(path), "--cache-dir", fixture.cacheDir] + arguments,
                                        folder: fixture.folder, name: name, environment: ["XDG_DATA_HOME": site.dataHome],
                                        timeout: .seconds(120))
    }

    @Test func aDASHPageIsFetchedByTheEngineEveryFragmentOnceVideoAndAudioInOneMP4() throws {
        let clip = try serveDASHPage()
        let run = try download("/watch/dash.html")
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasSuffix("/Harbour at dusk.mp4"), "named after yt-dlp's title: \(path)")
        let kinds = try FFprobe.packets(path).map(\.kind)
        #expect(kinds.contains("video") && kinds.contains("audio"), "\(kinds)")
        // Every init section and segment of both Representations, each asked for once, by
        // Fetchplay (yt-dlp reads the page and the manifest only).
        let pieces = clip.files.keys.filter { $0.hasPrefix("tl/") && $0.hasSuffix(".m4s") }
        #expect(pieces.count >= 10)
        for piece in pieces {
            let asked = server.requests(to: "/" + piece)
            #expect(asked.count == 1, "\(piece) asked \(asked.count) times")
            #expect(asked.allSatisfy { !($0["user-agent"] ?? "").contains("yt-dlp") })
        }
        #expect(fixture.presentationFolders().isEmpty, "the segments' folder goes once the video is whole")
    }

    @Test func aProgressiveFormatComesOverSeveralConnections() throws {
        let body = TestData.bytes(count: 8 << 20, seed: 38)
        // 4 s on one connection: the engine opens more.
        server.serve("/media/clip", body: body, etag: "\"c\"", faults: [.throttle(bytesPerSecond: 2 << 20)], faultyRequests: nil)
        server.serve("/watch/file.html", body: Self.playerPage(file: "/media/clip", type: "mp4", title: "Harbour file"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try download("/watch/file.html", ["--connections", "4"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(try sha256Hex(ofFile: #require(run.lastLine)) == sha256Hex(of: body))
        let ranged = server.requests(to: "/media/clip").filter { $0["range"] != nil && $0.method == "GET" }
        #expect(Set(ranged.map(\.connection)).count >= 2, "several connections: \(ranged.map { $0["range"] ?? "" })")
    }

    /// The media link dies mid-download (403); yt-dlp is asked again, the page now names a
    /// fresh link, and the download goes on from the bytes on disk.
    @Test func anExpiredLinkIsExtractedAgainAndContinuedFromTheBytesOnDisk() throws {
        let body = TestData.bytes(count: 2 << 20, seed: 39)
        server.serve("/old/clip", body: body, etag: "\"same\"", faults: [.dropAfter(bytes: 700_000)], faultyRequests: 1)
        server.addFaults([.status(403)], to: "/old/clip", requests: nil)
        server.serve("/new/clip", body: body, etag: "\"same\"")
        // Read as a link, then scanned, then by yt-dlp: all see the old link; the next reading
        // (yt-dlp's again) the new one.
        server.serve("/watch/expiring.html", body: Self.playerPage(file: "/old/clip", type: "mp4", title: "Expiring"),
                     headers: [HTTPHeader("Content-Type", "text/html")], faults: [.header(name: "X-Read", value: "first")],
                     faultyRequests: 2)
        server.addFaults([.changeContent(body: Self.playerPage(file: "/new/clip", type: "mp4", title: "Expiring"), etag: nil)],
                         to: "/watch/expiring.html")
        let run = try download("/watch/expiring.html", ["--connections", "1"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(try sha256Hex(ofFile: #require(run.lastLine)) == sha256Hex(of: body))
        #expect(run.standardError.contains("The video’s link had expired"), "\(server.requests.map { "\($0.target) \($0["range"] ?? "")" })")
        let fresh = server.requests(to: "/new/clip").filter { $0.method == "GET" }
        let first = try #require(fresh.first)
        let start = first["range"].flatMap { Int($0.dropFirst(6).split(separator: "-")[0]) } ?? 0
        #expect(start > 0, "continued from the bytes on disk: \(first["range"] ?? "no range")")
        #expect(server.bytesSent(of: "/new/clip") < body.count)
    }

    /// An RSS feed of three player pages: yt-dlp lists it flat, `--list-videos` shows its
    /// entries, `--pick` saves only those asked for, each extracted when its turn comes.
    @Test func aPlaylistIsListedFlatAndPickSavesItsEntries() throws {
        _ = try serveDASHPage("/watch/1.html")
        let body = TestData.bytes(count: 300_000, seed: 40)
        server.serve("/media/two", body: body, etag: "\"2\"")
        server.serve("/watch/2.html", body: Self.playerPage(file: "/media/two", type: "mp4", title: "Second"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        server.serve("/watch/3.html", body: Self.playerPage(file: "/media/three", type: "mp4", title: "Third"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let items = (1...3).map { "<item><title>Entry \($0)</title><link>\(server.url("/watch/\($0).html"))</link><guid>\($0)</guid></item>" }
        server.serve("/feed.xml", body: Array("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>The feed</title><link>\(server.url("/"))</link>\(items.joined())</channel></rss>
            """.utf8), headers: [HTTPHeader("Content-Type", "application/rss+xml")])
        let site = try SiteSupportFixture.shared.get()
        let list = try FetchplayProcess.run(["--list-videos", server.url("/feed.xml"), "--cache-dir", fixture.cacheDir],
                                            folder: fixture.folder, name: "list", environment: ["XDG_DATA_HOME": site.dataHome],
                                            timeout: .seconds(120))
        #expect(list.status == 0, "stderr: \(list.standardError)")
        #expect(list.standardOutput == (1...3).map { "\($0)\tEntry \($0)\tsite\t\(server.url("/watch/\($0).html"))\n" }.joined())
        #expect(server.requests(to: "/watch/1.html").isEmpty, "listed flat: no entry is read")

        let run = try download("/feed.xml", ["--pick", "2"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(try sha256Hex(ofFile: #require(run.lastLine)) == sha256Hex(of: body))
        #expect(server.requests(to: "/watch/1.html").isEmpty && server.requests(to: "/watch/3.html").isEmpty)
    }

    @Test func audioOnlySavesTheBestAudioAsItIsInAnM4A() throws {
        let clip = try serveDASHPage()
        let run = try download("/watch/dash.html", ["--audio-only"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasSuffix(".m4a"), "\(path)")
        #expect(try FFprobe.packets(path).map(\.kind) == ["audio"])
        let video = clip.files.keys.filter { $0.hasPrefix("tl/") && $0.contains("stream0") }
        #expect(video.allSatisfy { server.requests(to: "/" + $0).isEmpty }, "no video piece is fetched")
    }

    /// A site whose only format is a progressive video with its audio: the engine fetches the
    /// file, then its audio track is copied out as it is (the same AAC packets) into an `.m4a`,
    /// and the video goes.
    @Test func audioOnlyFromAProgressiveVideoCopiesItsAudioTrack() throws {
        let file = try Clips.mp4IndexLast(seconds: 4)
        server.serve("/media/movie.mp4", body: Array(try Data(contentsOf: URL(fileURLWithPath: file))), etag: "\"m\"")
        server.serve("/watch/movie.html", body: Self.playerPage(file: "/media/movie.mp4", type: "mp4", title: "Harbour sound"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try download("/watch/movie.html", ["--audio-only"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasSuffix("/Harbour sound.m4a"), "\(path)")
        let audio = try FFprobe.packets(file).filter { $0.kind == "audio" }
        #expect(try FFprobe.packets(path).map(\.kind) == ["audio"])
        #expect(try FFprobe.packets(path).first?.count == audio.first?.count, "copied, not encoded again")
        let saved = try FileManager.default.contentsOfDirectory(atPath: fixture.cacheDir + "/videos").filter { !$0.hasSuffix(".json") }
        #expect(saved == ["Harbour sound.m4a"], "the video is gone: \(saved)")
    }

    /// A format only yt-dlp can fetch (here every format is marked `impersonate` by a wrapper
    /// around the real yt-dlp): yt-dlp's own downloader saves it in the cache, SIGINT stops it
    /// with its `.part` kept, the same command again continues that `.part` with a Range, and
    /// the file ends in the videos folder.
    @Test func aFormatOnlyYtDlpCanFetchIsItsOwnDownloadPausedAndContinued() throws {
        let site = try SiteSupportFixture.shared.get()
        let body = TestData.bytes(count: 3 << 20, seed: 41)
        server.serve("/media/slow", body: body, etag: "\"s\"", faults: [.throttle(bytesPerSecond: 1 << 20)], faultyRequests: nil)
        server.serve("/watch/only.html", body: Self.playerPage(file: "/media/slow", type: "mp4", title: "Only yt-dlp"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let bin = fixture.folder.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let wrapper = try fixture.folder.write(Array("""
            #!/bin/sh
            for a in "$@"; do [ "$a" = "-J" ] && json=1; done
            if [ -n "$json" ]; then
              "\(site.program)" "$@" | python3 -c 'import json, sys; d = json.load(sys.stdin); [f.__setitem__("impersonate", True) for f in d.get("formats", [])]; print(json.dumps(d))'
              exit $?
            fi
            exec "\(site.program)" "$@"
            """.utf8), to: "bin/yt-dlp")
        chmod(wrapper, 0o755)
        // No managed copy: the wrapper on PATH is the yt-dlp Fetchplay finds.
        let environment = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                           "XDG_DATA_HOME": fixture.folder.file("no-data")]
        let arguments = ["--download", server.url("/watch/only.html"), "--cache-dir", fixture.cacheDir]
        let sites = fixture.cacheDir + "/sites"
        func partBytes() -> Int {
            let folders = (try? FileManager.default.contentsOfDirectory(atPath: sites)) ?? []
            return folders.flatMap { folder in
                ((try? FileManager.default.contentsOfDirectory(atPath: sites + "/" + folder)) ?? [])
                    .filter { $0.hasSuffix(".part") }.map { sites + "/" + folder + "/" + $0 }
            }.compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.max() ?? 0
        }
        let first = try FetchplayProcess(arguments, folder: fixture.folder, name: "first", environment: environment)
        #expect(waitUntil(timeout: .seconds(60)) { partBytes() > 300_000 })
        first.send(SIGINT)
        #expect(first.waitForExit(timeout: .seconds(20)))
        #expect(first.status == 130, "stderr: \(first.standardError)")
        let kept = partBytes()
        #expect(kept > 0, "its .part stays")

        let second = try FetchplayProcess.run(arguments, folder: fixture.folder, name: "second", environment: environment,
                                              timeout: .seconds(120))
        #expect(second.status == 0, "stderr: \(second.standardError)")
        let path = try #require(second.lastLine)
        #expect(path.hasPrefix(fixture.cacheDir + "/videos/") && path.hasSuffix("Only yt-dlp.mp4"), "\(path)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        let last = try #require(server.requests(to: "/media/slow").last)
        let start = last["range"].flatMap { Int($0.dropFirst(6).split(separator: "-")[0]) } ?? 0
        #expect(start > 0, "continued its .part: \(last["range"] ?? "no range")")
        #expect(!FileManager.default.fileExists(atPath: sites) || partBytes() == 0, "nothing left behind")
    }

    /// yt-dlp's best format is on a streaming protocol (a wrapper around the real yt-dlp turns
    /// the page's 720p file into an RTMP format and adds the same file as a 240p https one): it
    /// is kept, chosen, and goes to yt-dlp's own downloader (which fetches it by its id), not
    /// the engine's worse https one.
    @Test func aBetterFormatOnAStreamingProtocolGoesToYtDlpsDownloader() throws {
        let site = try SiteSupportFixture.shared.get()
        let body = TestData.bytes(count: 1 << 20, seed: 42)
        server.serve("/media/stream", body: body, etag: "\"r\"")
        server.serve("/watch/stream.html", body: Self.playerPage(file: "/media/stream", type: "mp4", title: "Streamed"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let bin = fixture.folder.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let rewrite = """
            import json, sys
            d = json.load(sys.stdin)
            f = d["formats"][-1]
            low = dict(f, format_id="low", height=240)
            f.update(protocol="rtmp", url="rtmp://127.0.0.1:9/vod/mp4:clip", height=720)
            d["formats"] = [low, f]
            print(json.dumps(d))
            """
        let script = try fixture.folder.write(Array(rewrite.utf8), to: "bin/rewrite.py")
        let wrapper = try fixture.folder.write(Array("""
            #!/bin/sh
            for a in "$@"; do [ "$a" = "-J" ] && json=1; done
            if [ -n "$json" ]; then
              "\(site.program)" "$@" | python3 "\(script)"
              exit $?
            fi
            exec "\(site.program)" "$@"
            """.utf8), to: "bin/yt-dlp")
        chmod(wrapper, 0o755)
        let environment = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                           "XDG_DATA_HOME": fixture.folder.file("no-data")]
        let run = try FetchplayProcess.run(["--download", server.url("/watch/stream.html"), "--cache-dir", fixture.cacheDir],
                                           folder: fixture.folder, name: "streamed", environment: environment, timeout: .seconds(120))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasSuffix("/Streamed.mp4"), "\(path)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        let agents = server.requests(to: "/media/stream").filter { $0.method == "GET" }.map { $0["user-agent"] ?? "" }
        #expect(!agents.isEmpty && agents.allSatisfy { !$0.hasPrefix("Fetchplay/") }, "fetched by yt-dlp, not the engine: \(agents)")
    }

    /// yt-dlp's duration and thumbnail for the library: the record keeps the duration; the
    /// picture (on another host, `localhost`) is fetched with the format's context, so the
    /// cookie given for the page's host does not go there, and kept in the thumbnails folder under
    /// the video's fingerprint. A picture past 2 MiB, or one that is no image, is not kept, and
    /// the video is saved all the same.
    @Test(arguments: ["jpeg", "huge", "html"])
    func theSitesDurationAndPictureGoToTheLibrary(_ poster: String) throws {
        let body = TestData.bytes(count: 300_000, seed: 43)
        let picture = Array(try Data(contentsOf: URL(fileURLWithPath: Clips.jpeg())))
        let served: [UInt8] = switch poster {
        case "jpeg": picture
        case "huge": picture + [UInt8](repeating: 0, count: 2 << 20)
        default: Array("<html><body>no picture</body></html>".utf8)
        }
        server.serve("/media/pictured", body: body, etag: "\"p\"")
        server.serve("/poster.jpg", body: served)
        let image = server.url("/poster.jpg").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        server.serve("/watch/pictured.html", body: Array("""
            <html><head><title>Player page</title></head><body><div id="player"></div>
            <script>jwplayer("player").setup({"file": "/media/pictured", "title": "Pictured", "type": "mp4",
              "image": "\(image)", "duration": 4});</script>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try download("/watch/pictured.html", ["--cookie", "sid=pg-S3CRET"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let videos = fixture.cacheDir + "/videos"
        let record = try #require(try FileManager.default.contentsOfDirectory(atPath: videos).first { $0.hasSuffix(".json") })
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: videos + "/" + record))) as? [String: Any])
        #expect((fields["duration"] as? NSNumber)?.doubleValue == 4, "\(fields)")
        let asked = server.requests(to: "/poster.jpg")
        #expect(asked.count == 1 && asked.allSatisfy { $0["cookie"] == nil && !($0["user-agent"] ?? "").contains("yt-dlp") },
                "once, by Fetchplay, with nothing bound to the page's host: \(asked.map(\.headers))")
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: fixture.cacheDir + "/thumbnails")) ?? []).filter { $0.hasSuffix(".picture") }
        if poster == "jpeg" {
            #expect(kept.count == 1)
            #expect(kept.first.flatMap { FileManager.default.contents(atPath: fixture.cacheDir + "/thumbnails/" + $0) }.map(Array.init) == picture)
        } else {
            #expect(kept.isEmpty, "\(poster): not kept")
        }
    }
}

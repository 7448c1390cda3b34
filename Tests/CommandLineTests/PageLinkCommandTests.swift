import Foundation
import Testing
import TestSupport

/// A download found on a web page lives under the page's link: the same page twice is one
/// download, `--list` names the page, and a media link whose token expires (during a pause,
/// after a restart, in the middle of a run) is found again on the page and the download goes on
/// from the bytes it has.
struct PageLinkCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    static let body = TestData.bytes(count: 600_000, seed: 35)

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-page-link")
    }

    /// The page at /watch: one video at `/TOKEN/clip.webm`, like a site whose media links carry
    /// a token.
    private func page(token: String) -> [UInt8] {
        Array("""
            <html><head><meta property="og:title" content="Harbour at night - Example TV"></head>
            <body><video src="/\(token)/clip.webm"></video></body></html>
            """.utf8)
    }

    /// The page names `token`, and at each later reading the next of `next`. (The first reading
    /// is the link's own answer, found to be a page; the scanner reads it a second time.)
    private func servePage(token: String, then next: [String] = []) {
        server.serve("/watch", body: page(token: token), headers: [HTTPHeader("Content-Type", "text/html")],
                     faults: next.first.map { [.changeContent(body: page(token: $0), etag: nil)] } ?? [], faultyRequests: 1)
        // Each later reading of the page names the next token.
        for (index, token) in next.enumerated().dropFirst() {
            _ = index
            server.addFaults([.changeContent(body: page(token: token), etag: nil)], to: "/watch", requests: 1)
        }
    }

    /// The old link now answers 403, the page names the fresh one.
    private func expire(_ old: String, fresh: String) {
        server.serve("/\(old)/clip.webm", body: Self.body, etag: "\"c\"", faults: [.status(403)])
        server.serve("/\(fresh)/clip.webm", body: Self.body, etag: "\"c\"")
        servePage(token: fresh)
    }

    @Test func aTokenThatExpiresWhileStoppedIsFoundAgainAndTheDownloadGoesOnFromItsBytes() throws {
        servePage(token: "t1")
        server.serve("/t1/clip.webm", body: Self.body, etag: "\"c\"", faults: [.throttle(bytesPerSecond: 200_000)])
        let link = server.url("/watch")
        let first = try FetchplayProcess(["--download", link, "--cache-dir", fixture.cacheDir], folder: fixture.folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { (fixture.partialDurableBytes ?? 0) > 0 })
        first.send(SIGINT)
        #expect(first.waitForExit(timeout: .seconds(5)))
        #expect(first.status == 128 + SIGINT)
        let durable = try #require(fixture.partialDurableBytes)

        expire("t1", fresh: "t2")
        let pageReads = server.requests(to: "/watch").count
        let second = try fixture.download(link, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        let path = try #require(second.lastLine)
        #expect((path as NSString).lastPathComponent == "Harbour at night.webm")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
        // The kept media link first (never the page against the media's bytes), then the page,
        // then the fresh link from where the bytes on disk end.
        #expect(server.requests(to: "/t1/clip.webm").last?["range"] == "bytes=\(durable)-")
        let fresh = try #require(server.requests(to: "/t2/clip.webm").first)
        #expect(fresh["range"] == "bytes=\(durable)-" && fresh["if-range"] == "\"c\"")
        #expect(server.requests(to: "/watch").count == pageReads + 1, "read once more, for the fresh link")
        #expect(second.standardError.contains("its page gave a fresh one"))
    }

    @Test func aLinkThatDiesInTheMiddleOfARunIsFoundAgainOnThePage() throws {
        servePage(token: "a", then: ["a", "b"])
        // The first answer breaks off; the link is dead from then on.
        server.serve("/a/clip.webm", body: Self.body, etag: "\"c\"", faults: [.dropAfter(bytes: 250_000)], faultyRequests: 1)
        server.addFaults([.status(410)], to: "/a/clip.webm", requests: nil)
        server.serve("/b/clip.webm", body: Self.body, etag: "\"c\"")
        let run = try fixture.download(server.url("/watch"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(try sha256Hex(ofFile: #require(run.lastLine)) == sha256Hex(of: Self.body))
        let fresh = try #require(server.requests(to: "/b/clip.webm").first)
        #expect(fresh["range"] != nil && fresh["range"] != "bytes=0-", "it went on from the bytes it had")
    }

    @Test func aLinkThatKeepsDyingIsRefreshedTwiceThenItsErrorStands() throws {
        servePage(token: "a", then: ["a", "b", "c", "d"])
        for token in ["a", "b", "c", "d"] {
            server.serve("/\(token)/clip.webm", body: Self.body, etag: "\"c\"", faults: [.status(403)])
        }
        let run = try fixture.download(server.url("/watch"))
        #expect(run.status == 3)
        #expect(run.standardError.contains("403"), "stderr: \(run.standardError)")
        #expect(server.requests(to: "/watch").count == 4, "the link's answer, the scan, two refreshes")
        #expect(!server.requests(to: "/c/clip.webm").isEmpty && server.requests(to: "/d/clip.webm").isEmpty)
    }

    @Test func theSamePageTwiceIsOneDownloadListedUnderThePage() throws {
        servePage(token: "t1")
        server.serve("/t1/clip.webm", body: Self.body, etag: "\"c\"")
        let link = server.url("/watch")
        let first = try fixture.download(link, name: "first")
        #expect(first.status == 0, "stderr: \(first.standardError)")
        servePage(token: "t9")
        let second = try fixture.download(link, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        #expect(second.lastLine == first.lastLine)
        #expect(server.requests(to: "/t1/clip.webm").count == 1 && server.requests(to: "/t9/clip.webm").isEmpty)
        let list = try FetchplayProcess.run(["--list", "--cache-dir", fixture.cacheDir], folder: fixture.folder, name: "list")
        #expect(list.status == 0)
        let row = try #require(list.standardOutput.split(separator: "\n").first)
        #expect(row.contains(link) && row.contains("Harbour at night") && !row.contains("/t1/"), "\(row)")
    }

    @Test func aPlayerScriptsHLSIsSavedAsOneVideoNamedAfterThePage() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        server.serve("/lecture", body: Array("""
            <html><head><title>Week 3: Tides | Open Course</title></head><body>
            <video-js data-setup='{"sources":[{"src":"\(server.url("/master.m3u8").replacingOccurrences(of: "/", with: "\\/"))","type":"application/x-mpegURL"}]}'></video-js>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try fixture.download(server.url("/lecture"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect((path as NSString).lastPathComponent == "Week 3: Tides.mp4")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// A stream whose every link carries the token (playlist and segments): after a stop and
    /// the token's end, the page gives a fresh playlist link, whose playlist is read again, and
    /// the video is whole.
    @Test func aStreamsTokenThatExpiresWhileStoppedIsFoundAgainOnThePage() throws {
        let clip = try Clips.hls()
        let segments = clip.segments(of: "v360")
        func serve(_ token: String, faults: [Fault] = []) {
            for (path, body) in clip.files where path.hasPrefix("v360/") {
                server.serve("/\(token)/\(path)", body: body, etag: "\"\(path)\"", faults: faults)
            }
        }
        func page(_ token: String) -> [UInt8] {
            Array("<title>Harbour live | TV</title><video src='/\(token)/v360/index.m3u8' type='application/x-mpegURL'></video>".utf8)
        }
        server.serve("/stream", body: page("s1"), headers: [HTTPHeader("Content-Type", "text/html")])
        serve("s1")
        // The first two segments finish; the rest stop half-way until the process is gone.
        for segment in segments.dropFirst(2) { server.hold("/s1/" + segment, offsets: clip.files[segment]!.count / 2..<clip.files[segment]!.count) }
        let link = server.url("/stream")
        let first = try FetchplayProcess(["--download", link, "--cache-dir", fixture.cacheDir], folder: fixture.folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { segments.prefix(2).allSatisfy { server.bytesSent(of: "/s1/" + $0) >= clip.files[$0]!.count } })
        #expect(waitUntil(timeout: .seconds(20)) { server.requests(to: "/s1/" + segments[2]).count >= 1 })
        first.send(SIGINT)
        #expect(first.waitForExit(timeout: .seconds(5)))
        #expect(first.status == 128 + SIGINT, "stderr: \(first.standardError)")
        for segment in segments.dropFirst(2) { server.release("/s1/" + segment) }

        serve("s1", faults: [.status(403)])
        serve("s2")
        server.serve("/stream", body: page("s2"), headers: [HTTPHeader("Content-Type", "text/html")])
        let second = try fixture.download(link, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        let path = try #require(second.lastLine)
        #expect((path as NSString).lastPathComponent == "Harbour live.mp4")
        let media = try DiscoveredMedia.probe(path)
        #expect(abs(media.duration - clip.seconds) < 0.25, "duration \(media.duration)")
        #expect(server.requests(to: "/s2/v360/index.m3u8").count == 1, "the fresh link's playlist, read once")
        #expect(second.standardError.contains("its page gave a fresh one"))
    }

    /// A page's `<video poster>`: fetched with the page's context once the video is whole (the
    /// page's cookie goes along, as a browser sends it on its own host), kept in the thumbnails
    /// folder under the video's fingerprint for its library row.
    @Test func aPagesPosterGoesToTheLibrary() throws {
        let picture = Array(try Data(contentsOf: URL(fileURLWithPath: Clips.jpeg(color: "blue"))))
        server.serve("/poster.jpg", body: picture)
        server.serve("/m/clip.webm", body: Self.body, etag: "\"c\"")
        server.serve("/harbour", body: Array("""
            <html><head><title>Harbour</title></head><body><video src="/m/clip.webm" poster="/poster.jpg"></video></body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try fixture.download(server.url("/harbour"), ["--cookie", "sid=pg-1"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let asked = server.requests(to: "/poster.jpg")
        #expect(asked.count == 1 && asked.first?["cookie"] == "sid=pg-1", "\(asked.map(\.headers))")
        let thumbnails = fixture.cacheDir + "/thumbnails"
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: thumbnails)) ?? []).filter { $0.hasSuffix(".picture") }
        #expect(kept.count == 1 && kept.first.flatMap { FileManager.default.contents(atPath: thumbnails + "/" + $0) }.map(Array.init) == picture)
    }
}

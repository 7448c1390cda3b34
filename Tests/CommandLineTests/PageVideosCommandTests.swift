import Foundation
import Testing
import TestSupport

/// `fetchplay --list-videos PAGE` reads a real page from the test server: what it offers, in
/// page order, each once, with the page's cookie context on the way; a page without a video is
/// one sentence and exit 7.
struct PageVideosCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-page")
    }

    /// What a page with no video the scanner can see ends in when there is no site support.
    static let noVideoWithoutSiteSupport = "No video found on this page; site support (yt-dlp) reads many more sites: "
        + "run fetchplay --update-site-support, or install it in Preferences, then try again."

    private func listVideos(_ path: String, _ arguments: [String] = []) throws -> FetchplayProcess {
        try FetchplayProcess.run(["--list-videos", server.url(path)] + arguments, folder: fixture.folder, name: "list-videos")
    }

    @Test func aPageWithSeveralVideosListsEachOnceInPageOrder() throws {
        server.serve("/talks/day1.html", body: Array("""
            <!doctype html><html><head><title>Day one | Conf</title>
            <meta property="og:video" content="/media/keynote.mp4"></head><body>
            <video src="/media/keynote.mp4" title="Keynote"></video>
            <div class="player" data-config='{"hls":"\(server.url("/media/panel/master.m3u8").replacingOccurrences(of: "/", with: "\\/"))"}'></div>
            <a href="notes.pdf">Notes</a>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
        let run = try listVideos("/talks/day1.html")
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines == [
            ["1", "Keynote", "file", server.url("/media/keynote.mp4")],
            ["2", "Day one 2", "stream", server.url("/media/panel/master.m3u8")],
        ])
        #expect(server.requests.map(\.target) == ["/talks/day1.html"], "listing fetches the page alone")
    }

    @Test func aPageWithoutAVideoIsOneSentenceAndExitSeven() throws {
        server.serve("/about.html", body: Array("<html><title>About</title><p>No media here.</p>".utf8))
        let run = try listVideos("/about.html")
        #expect(run.status == 7)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "fetchplay: \(Self.noVideoWithoutSiteSupport)\n")
    }

    @Test func aLinkThatIsItselfAVideoOrAPlaylistIsItsOneVideo() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let playlist = try listVideos("/master.m3u8")
        #expect(playlist.status == 0, "stderr: \(playlist.standardError)")
        #expect(playlist.standardOutput == "1\tmaster\tstream\t\(server.url("/master.m3u8"))\n")
        server.serve("/v.pdf", body: Array("%PDF-1.4\n%âãÏÓ\n1 0 obj\n".utf8))
        let pdf = try listVideos("/v.pdf")
        #expect(pdf.status == 7 && pdf.standardOutput.isEmpty)
    }

    private func download(_ path: String, _ arguments: [String] = []) throws -> FetchplayProcess {
        try fixture.download(server.url(path), arguments)
    }

    /// Every file left under the cache folder.
    private var cacheFiles: [String] {
        (FileManager.default.enumerator(atPath: fixture.cacheDir)?.compactMap { $0 as? String } ?? [])
            .filter { name in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: fixture.cacheDir + "/" + name, isDirectory: &isFolder) && !isFolder.boolValue
            }
    }

    @Test func aPageWithOneVideoSavesItUnderThePagesTitleWithTheCookieThePageSet() throws {
        let body = TestData.bytes(count: 200_000, seed: 351)
        server.serve("/watch/42", body: Array("""
            <html><head><title>ignored</title><meta property="og:title" content="Launch day | Example TV"></head>
            <body><video src="/media/launch.webm"></video></body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("Set-Cookie", "pass=ok-7; Path=/media; HttpOnly")])
        server.serve("/media/launch.webm", body: body, etag: "\"l\"")
        let run = try download("/watch/42", ["--header", "X-Secret: s"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect((path as NSString).lastPathComponent == "Launch day.webm")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        let media = try #require(server.requests(to: "/media/launch.webm").first)
        #expect(media["cookie"] == "pass=ok-7")
        #expect(media["referer"] == server.url("/watch/42"))
        #expect(media["x-secret"] == "s", "the media is on the page's host, which the hand-given header belongs to")
        #expect(!run.standardError.contains("ok-7") && !run.standardOutput.contains("ok-7"))
    }

    @Test func severalVideosAreSavedInPageOrderOrThosePicked() throws {
        let one = TestData.bytes(count: 50_000, seed: 1), two = TestData.bytes(count: 60_000, seed: 2)
        server.serve("/list.html", body: Array("""
            <title>Lessons - School</title><video src="/a.webm" title="First lesson"></video><a href="/b.mp4">b</a>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        server.serve("/a.webm", body: one)
        server.serve("/b.mp4", body: two)
        let picked = try download("/list.html", ["--pick", "2"])
        #expect(picked.status == 0, "stderr: \(picked.standardError)")
        #expect(picked.standardOutput.split(separator: "\n").map { ($0 as NSString).lastPathComponent } == ["Lessons 2.mp4"])
        #expect(server.requests(to: "/a.webm").isEmpty)
        let all = try download("/list.html")
        #expect(all.status == 0, "stderr: \(all.standardError)")
        #expect(all.standardOutput.split(separator: "\n").map { ($0 as NSString).lastPathComponent } == ["First lesson.webm", "Lessons 2.mp4"])
        let outside = try download("/list.html", ["--pick", "3"])
        #expect(outside.status == 2 && outside.standardError.contains("2"))
        let badPick = try download("/list.html", ["--pick", "two"])
        #expect(badPick.status == 2)
    }

    @Test func aPageWithNoVideoLeavesNothingInTheCache() throws {
        server.serve("/empty.html", body: Array("<html><title>Nothing</title><p>text</p></html>".utf8),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let run = try download("/empty.html", ["--cookie", "a=b"])
        #expect(run.status == 7)
        #expect(run.standardError == "fetchplay: \(Self.noVideoWithoutSiteSupport)\n")
        #expect(cacheFiles.filter { !$0.hasSuffix(".lock") && !$0.hasPrefix("settings") } == [], "\(cacheFiles)")
    }

    @Test func thePageIsFetchedWithTheGivenContext() throws {
        server.serve("/members/page.html", body: Array("<video src='v.webm'></video>".utf8))
        let run = try listVideos("/members/page.html", ["--cookie", "member=yes", "--referer", server.url("/")])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let request = try #require(server.requests(to: "/members/page.html").first)
        #expect(request["cookie"] == "member=yes")
        #expect(!run.standardOutput.contains("member=yes") && !run.standardError.contains("member=yes"))
    }
}

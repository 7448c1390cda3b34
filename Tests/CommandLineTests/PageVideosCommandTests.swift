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
        #expect(run.standardError == "fetchplay: No video found on this page.\n")
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

    @Test func thePageIsFetchedWithTheGivenContext() throws {
        server.serve("/members/page.html", body: Array("<video src='v.webm'></video>".utf8))
        let run = try listVideos("/members/page.html", ["--cookie", "member=yes", "--referer", server.url("/")])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let request = try #require(server.requests(to: "/members/page.html").first)
        #expect(request["cookie"] == "member=yes")
        #expect(!run.standardOutput.contains("member=yes") && !run.standardError.contains("member=yes"))
    }
}

@testable import FetchCore
import Foundation
import Testing

/// The page scanner reads the places real pages name their media, resolves them against the
/// page, counts each once, and takes nothing that is no http(s) link. Pages are as sites write
/// them, broken HTML included.
struct PageScannerTests {
    static let page = "https://news.example.org/2026/talk.html?id=4"

    private func scan(_ html: String, charset: String? = nil, page: String = page) -> PageScanner.Scan {
        PageScanner.scan(HTMLPage(Array(html.utf8), charset: charset), page: page)
    }

    @Test func videoElementsAndTheirSourcesInPageOrder() {
        let found = scan("""
            <html><head><title>A talk | Example News</title></head><body>
            <video src="/media/intro.webm" title="Intro" poster="/media/intro.jpg"></video>
            <video aria-label="The talk" poster="javascript:alert(1)"><source src="talk.mp4" type="video/mp4">
            <source src="https://cdn.example.net/talk/master.m3u8" type="application/x-mpegURL"></video>
            <picture><source srcset="a.webp"></picture>
            <audio><source src="../sound.ogg"></audio>
            """)
        #expect(found.videos.map(\.url) == [
            "https://news.example.org/media/intro.webm",
            "https://news.example.org/2026/talk.mp4",
            "https://cdn.example.net/talk/master.m3u8",
            "https://news.example.org/sound.ogg",
        ])
        #expect(found.videos.map(\.title) == ["Intro", "The talk", "The talk", nil])
        #expect(found.videos.map(\.kind) == [.file, .file, .stream, .file])
        // A poster is the video's picture, an http(s) link or none.
        #expect(found.videos.map(\.thumbnail) == ["https://news.example.org/media/intro.jpg", nil, nil, nil])
        #expect(found.title == "A talk")
    }

    @Test func openGraphTwitterAndLinksToMediaFiles() {
        let found = scan("""
            <meta property="og:title" content="  The   launch ">
            <meta property="og:video:secure_url" content="https://v.example.org/launch.mp4">
            <meta property="og:video" content="https://v.example.org/launch.mp4">
            <meta name="twitter:player:stream" content="https://v.example.org/launch.mpd">
            <a href="/files/launch-hd.mkv" download>HD</a> <a href="/about.html">About</a>
            """)
        #expect(found.videos.map(\.url) == ["https://v.example.org/launch.mp4", "https://v.example.org/launch.mpd",
                                            "https://news.example.org/files/launch-hd.mkv"])
        #expect(found.title == "The launch")
    }

    @Test func jsonLDVideoObjectsInAGraphWithTheirNameDurationAndPicture() throws {
        let found = scan("""
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebPage","name":"Page"},
              {"@type":["VideoObject"],"name":"Keynote","duration":"PT1H2M3.5S",
               "contentUrl":"https://media.example.org/keynote.mp4","thumbnailUrl":["/k.jpg"]},
              {"@type":"VideoObject","name":"Embed only","embedUrl":"https://player.example.org/embed/9"}]}
            </script>
            <video src="https://media.example.org/keynote.mp4"></video>
            <title>Ignored | Site</title>
            """)
        let video = try #require(found.videos.first)
        #expect(found.videos.count == 1, "an embed that names no media is no video")
        #expect(video.title == "Keynote")
        #expect(video.duration == 3723.5)
        #expect(video.thumbnail == "https://news.example.org/k.jpg")
        #expect(found.title == "Keynote")
    }

    /// Of several JSON-LD videos, each name is its own video's, not the page's.
    @Test func severalJSONLDVideosKeepTheirNamesAndThePageKeepsItsTitle() {
        let found = scan("""
            <title>Knots | Sea School</title>
            <script type="application/ld+json">[{"@type":"VideoObject","name":"Reef knot","contentUrl":"/a.mp4"},
              {"@type":"VideoObject","name":"Bowline","contentUrl":"/b.mp4"}]</script>
            """)
        #expect(found.videos.map(\.title) == ["Reef knot", "Bowline"])
        #expect(found.title == "Knots")
    }

    @Test func oneJSONLDVideoBesideAnotherVideoNamesOnlyItself() {
        let found = scan("""
            <title>Knots | Sea School</title>
            <script type="application/ld+json">{"@type":"VideoObject","name":"Reef knot","contentUrl":"/a.mp4"}</script>
            <video src="/b.mp4" title="Bowline"></video>
            """)
        #expect(found.videos.map(\.title) == ["Reef knot", "Bowline"])
        #expect(found.title == "Knots")
    }

    @Test func linksWrittenInScriptsAndDataAttributesWithJSONEscapes() {
        let found = scan(#"""
            <div data-setup='{"sources":[{"src":"https:\/\/cdn.example.org\/hls\/master.m3u8?token=a\u0026b","type":"application/x-mpegURL"}]}'></div>
            <script>var player = new Player({ manifest: "https://cdn.example.org/dash/stream.mpd", poster: "https://cdn.example.org/p.jpg" });</script>
            <script type="text/template">https://cdn.example.org/not-read.mp4</script>
            """#)
        #expect(found.videos.map(\.url) == ["https://cdn.example.org/hls/master.m3u8?token=a&b", "https://cdn.example.org/dash/stream.mpd"])
        #expect(found.videos.allSatisfy { $0.kind == .stream })
    }

    @Test func baseHrefAndOnlyWebLinks() {
        let found = scan("""
            <base href="https://static.example.org/v/">
            <video src="clip.webm"></video>
            <video src="file:///etc/passwd"></video><video src="data:video/mp4;base64,AAAA"></video>
            <video src="blob:https://news.example.org/1"></video><video src="javascript:alert(1)"></video>
            """)
        #expect(found.videos.map(\.url) == ["https://static.example.org/v/clip.webm"])
    }

    @Test func sameSiteFramesOnlyAndNeverThePageItself() {
        let found = scan("""
            <iframe src="https://player.example.org/embed/1"></iframe>
            <iframe src="https://tracker.example.com/x"></iframe>
            <iframe src="\(Self.page)"></iframe>
            """)
        #expect(found.frames == ["https://player.example.org/embed/1"])
    }

    @Test func brokenHTMLAnotherCharsetAndThousandsOfElements() {
        let latin1: [UInt8] = Array("<title>Caf".utf8) + [0xE9] + Array(" | X</title><video src=a.mp4".utf8)
        let broken = PageScanner.scan(HTMLPage(latin1, charset: "ISO-8859-1"), page: Self.page)
        #expect(broken.title == "Café")
        #expect(broken.videos.map(\.url) == ["https://news.example.org/2026/a.mp4"])

        let many = (0..<1_000).map { "<a href='/v/\($0).mp4'>\($0)</a>" }.joined()
        #expect(scan(many).videos.count == PageScanner.videoLimit)
        #expect(scan("").videos.isEmpty)
        #expect(scan("<<<>>>\u{0}<video").videos.isEmpty)
    }

    @Test(arguments: [
        ("Big Buck Bunny | Blender Studio", "Big Buck Bunny"),
        ("Spider-Man - Trailer - Movies", "Spider-Man - Trailer"),
        ("Plain title", "Plain title"),
        ("| Only site", "| Only site"),
        ("A\u{202E}b\u{200B}c – Site", "Abc"),
    ])
    func theSiteNameTrailingATitleIsCut(title: String, expected: String) {
        #expect(PageTitle.withoutSiteName(title) == expected)
    }

    @Test func setCookieFollowsTheBrowsersRules() throws {
        let url = "https://www.example.org/videos/page.html"
        let session = try #require(Cookie(setCookie: "sid=abc; Path=/; Secure; HttpOnly", from: url))
        #expect(session.domain == "www.example.org" && !session.includesSubdomains && session.secure && session.expires == nil)
        let wide = try #require(Cookie(setCookie: "t=1; Domain=.example.org; Max-Age=60", from: url))
        #expect(wide.domain == "example.org" && wide.includesSubdomains && wide.path == "/videos")
        #expect(Cookie(setCookie: "t=1; Domain=other.org", from: url) == nil)
        #expect(Cookie(setCookie: "t=1; Domain=org", from: url) == nil)
        #expect(Cookie(setCookie: "no-equals", from: url) == nil)
        let gone = try #require(Cookie(setCookie: "old=1; Max-Age=0", from: url))
        #expect(Cookie.matching([gone], url: url, now: Date()).isEmpty)
    }

    @Test func isoDurations() {
        #expect(JSONLDVideos.seconds("PT40M") == 2400)
        #expect(JSONLDVideos.seconds("P0DT1H") == 3600)
        #expect(JSONLDVideos.seconds("PT") == nil)
        #expect(JSONLDVideos.seconds("40:00") == nil)
        #expect(JSONLDVideos.seconds("P1Y") == nil)
    }
}

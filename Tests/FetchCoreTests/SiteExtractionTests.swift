import Foundation
import Testing
@testable import FetchCore
import TestSupport

/// yt-dlp asked about a page as a child process: a real yt-dlp (installed by the managed path
/// once per run) against a local page, and fake ones on PATH for hostile answers (one that
/// hangs, a traceback, 100 MB of output, broken JSON, file:// formats).
@Suite(.serialized) struct SiteExtractionTests {
    let folder: TemporaryDirectory
    let scratch: String

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-site-extraction")
        scratch = folder.file("cache/sites")
    }

    /// A fake `yt-dlp` running `script` (sh).
    func fake(_ script: String) throws -> SiteExtraction {
        let path = try folder.write(Array("#!/bin/sh\n\(script)\n".utf8), to: "yt-dlp")
        chmod(path, 0o755)
        return SiteExtraction(program: path, scratch: scratch)
    }

    func failure(_ extraction: SiteExtraction, context: RequestContext = RequestContext()) -> SiteExtractionError? {
        do {
            _ = try extraction.extract("http://127.0.0.1:9/page.html", context: context)
            return nil
        } catch {
            return error
        }
    }

    /// The page a player script names its video on, without a media extension: the scanner
    /// finds nothing there, yt-dlp's generic extractor does (JW Player's setup).
    static let playerPage = """
        <html><head><title>Player page</title></head><body><div id="player"></div>
        <script>jwplayer("player").setup({"file": "/media/clip", "title": "Harbour at dusk", "type": "mp4"});</script>
        </body></html>
        """

    @Test func aRealYtDlpReadsAPageTheScannerCannotWithThePagesContext() throws {
        let fixture = try SiteSupportFixture.shared.get()
        let server = try FaultServer()
        server.serve("/watch/page.html", body: Array(Self.playerPage.utf8))
        let scan = PageScanner.scan(HTMLPage(Array(Self.playerPage.utf8), charset: nil), page: server.url("/watch/page.html"))
        #expect(scan.videos.isEmpty, "the scanner finds nothing there")
        var context = RequestContext()
        context.cookies = [try Cookie(name: "session", value: "s3cret", domain: "127.0.0.1", includesSubdomains: false,
                                      path: "/", secure: false, expires: nil)]
        context.cookieHeader = "hand=given"
        context.userAgent = "FetchplayTest/1"
        context.referer = server.url("/from.html")
        context.headers = [try HeaderField(name: "X-Token", value: "t0ken")]
        var extraction = SiteExtraction(program: fixture.program, scratch: scratch)
        extraction.environment["XDG_DATA_HOME"] = fixture.dataHome
        let media = try extraction.extract(server.url("/watch/page.html"), context: context)
        #expect(media.title == "Harbour at dusk")
        #expect(media.extractor == "generic")
        let format = try #require(media.formats.last)
        #expect(format.url == server.url("/media/clip") && format.protocolName == "http" && format.isProgressive)
        let asked = try #require(server.requests.first { $0.path == "/watch/page.html" })
        let cookie = asked.headers.first { $0.name.lowercased() == "cookie" }?.value ?? ""
        #expect(cookie.contains("session=s3cret") && cookie.contains("hand=given"), "\(asked.headers)")
        #expect(asked.headers.contains { $0.name.lowercased() == "user-agent" && $0.value == "FetchplayTest/1" })
        #expect(asked.headers.contains { $0.name.lowercased() == "referer" && $0.value == server.url("/from.html") })
        #expect(asked.headers.contains { $0.name.lowercased() == "x-token" && $0.value == "t0ken" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "its files are gone")
    }

    /// The context reaches yt-dlp in files of the owner's alone, never in its arguments.
    @Test func theContextGoesInPrivateFilesNeverInArguments() throws {
        let seen = folder.file("seen")
        let extraction = try fake("""
            echo "$@" > \(seen)
            for f in "$3" $(sed -n "s/^--cookies '\\{0,1\\}\\([^']*\\)'\\{0,1\\}$/\\1/p" "$3"); do stat -c %a "$f" >> \(seen); cat "$f" >> \(seen); done
            echo '{"title": "t", "formats": [{"url": "https://cdn.example.com/v.mp4", "protocol": "https"}]}'
            """)
        var context = RequestContext()
        context.cookieHeader = "a=s3cret"
        context.headers = [try HeaderField(name: "Authorization", value: "Bearer t0ken")]
        context.proxy = .manual("socks5h://user:pa55@127.0.0.1:1080")
        let media = try extraction.extract("http://user:pw@127.0.0.1:9/page.html", context: context)
        #expect(media.formats.map(\.url) == ["https://cdn.example.com/v.mp4"])
        let text = try String(contentsOfFile: seen, encoding: .utf8)
        let arguments = try #require(text.split(separator: "\n").first)
        #expect(arguments.hasPrefix("--ignore-config --config-locations \(scratch)/yt-dlp-"))
        #expect(arguments.hasSuffix(" -J --no-warnings --no-progress --no-playlist -- http://user@127.0.0.1:9/page.html"))
        for secret in ["s3cret", "t0ken", "pa55", "pw"] { #expect(!arguments.contains(secret)) }
        #expect(text.split(separator: "\n").filter { $0 == "600" }.count == 2, "both files 0600: \(text)")
        #expect(text.contains("--add-header 'Authorization:Bearer t0ken'"))
        #expect(text.contains("--proxy socks5h://user:pa55@127.0.0.1:1080"))
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\ta\ts3cret"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
    }

    @Test func oneThatHangsIsStoppedAtItsTimeLimit() throws {
        var extraction = try fake("sleep 30 & sleep 30")
        extraction.timeLimit = 1
        let start = Date()
        let error = failure(extraction)
        #expect(error == .timedOut(seconds: 1))
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(error?.message == "yt-dlp took more than 1 seconds to read this page and was stopped; try again later.")
    }

    @Test func aTracebackIsNeverShownItsLastErrorLineIs() throws {
        let traceback = """
            echo 'Traceback (most recent call last):' >&2
            echo '  File "yt_dlp/__init__.py", line 1' >&2
            echo 'ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found' >&2
            """
        let said = failure(try fake(traceback + "\nexit 1"))
        #expect(said == .failed("[generic] Unable to download webpage: HTTP Error 404: Not Found"))
        #expect(said?.message == "yt-dlp could not read this page: [generic] Unable to download webpage: HTTP Error 404: Not Found")
        let bare = failure(try fake("echo 'Traceback (most recent call last):' >&2\necho 'KeyError: x' >&2\nexit 1"))
        #expect(bare == .failed(nil))
        #expect(bare?.message.contains("Traceback") == false && bare?.message.contains("KeyError") == false)
    }

    @Test func tooMuchOutputIsOneSentence() throws {
        let start = Date()
        let error = failure(try fake("head -c 100000000 /dev/zero"))
        #expect(error == .tooLarge(megabytes: 16))
        #expect(error?.message == "yt-dlp’s answer about this page is larger than 16 MB; Fetchplay does not read it.")
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func brokenJSONIsUnreadable() throws {
        #expect(failure(try fake("echo '{\"title\": '")) == .unreadable)
        #expect(failure(try fake("echo '[1, 2]'")) == .unreadable)
        #expect(failure(try fake("true")) == .unreadable)
    }

    /// Only absolute http(s) links survive: a `file:` or `data:` format, a fragment that is
    /// one, or a link that is no link, drops its format; texts lose their control characters.
    @Test func onlyHttpLinksAreKept() throws {
        let json = """
            {"title": "A\\u0000 title\\u202e\\n", "duration": 12.5, "thumbnail": "file:///etc/passwd",
             "formats": [
              {"format_id": "a", "url": "file:///etc/passwd", "protocol": "file"},
              {"format_id": "b", "url": "data:video/mp4;base64,AAAA", "protocol": "https"},
              {"format_id": "c", "url": "/relative.mp4", "protocol": "https"},
              {"format_id": "d", "protocol": "http_dash_segments", "fragment_base_url": "https://cdn.example.com/v/",
               "fragments": [{"path": "1.m4s"}, {"url": "file:///etc/shadow"}]},
              {"format_id": "e", "protocol": "http_dash_segments", "fragment_base_url": "https://cdn.example.com/v/",
               "fragments": [{"path": "1.m4s", "duration": 2}, {"path": "2.m4s"}], "vcodec": "avc1", "acodec": "none"},
              {"format_id": "f", "url": "https://cdn.example.com/v.mp4", "protocol": "https", "ext": "mp4", "height": 720,
               "tbr": 1500.5, "vcodec": "avc1", "acodec": "mp4a",
               "http_headers": {"User-Agent": "UA/1", "Bad Name": "x", "Referer": "https://site.example/\\r\\nX: y"}}
             ]}
            """
        let media = try SiteMedia.parse(Data(json.utf8))
        #expect(media.title == "A title" && media.duration == 12.5 && media.thumbnail == nil)
        #expect(media.formats.map(\.id) == ["e", "f"])
        #expect(media.formats[0].fragments == ["https://cdn.example.com/v/1.m4s", "https://cdn.example.com/v/2.m4s"])
        #expect(!media.formats[0].isProgressive && !media.formats[0].isPlainHTTP)
        let best = media.formats[1]
        #expect(best.isProgressive && best.height == 720 && best.tbr == 1500.5 && best.ext == "mp4")
        #expect(best.httpHeaders.map(\.name) == ["User-Agent"])
        // The same through a fake yt-dlp.
        let served = try folder.write(Array(json.utf8), to: "answer.json")
        #expect(try fake("cat \(served)").extract("http://127.0.0.1:9/p", context: RequestContext()).formats.count == 2)
    }

    /// Formats only yt-dlp's own downloader fetches stay in the list, marked so, to be chosen:
    /// a streaming protocol's link (RTMP, RTSP) and one with no link at all; a streaming link
    /// under an http protocol, one with no host, a `javascript:` one or control characters
    /// still drop their format, and so does one with no id (nothing to ask yt-dlp for).
    @Test func streamingAndLinklessFormatsAreKeptForYtDlpsDownloader() throws {
        let json = """
            {"title": "Live archive", "formats": [
              {"format_id": "r", "url": "rtmp://media.example.com/vod/mp4:clip", "protocol": "rtmp", "height": 1080},
              {"format_id": "s", "url": "rtsp://cam.example.com/stream1", "protocol": "rtsp"},
              {"format_id": "n", "protocol": "mhtml"},
              {"format_id": "x1", "url": "rtmp://media.example.com/vod/clip", "protocol": "https"},
              {"format_id": "x2", "url": "rtmp:///nohost", "protocol": "rtmp"},
              {"format_id": "x3", "url": "javascript:alert(1)", "protocol": "rtmp"},
              {"format_id": "x4", "url": "rtmp://media.example.com/a\\nb", "protocol": "rtmp"},
              {"protocol": "rtmp"}, {"url": "rtmp://media.example.com/vod/noid", "protocol": "rtmp"},
              {"format_id": "h", "url": "https://cdn.example.com/v.mp4", "protocol": "https", "height": 720}
            ]}
            """
        let media = try SiteMedia.parse(Data(json.utf8))
        #expect(media.formats.map(\.id) == ["r", "s", "n", "h"])
        #expect(media.formats.map(\.needsYtDlp) == [true, true, true, false])
        #expect(media.formats[0].url == "rtmp://media.example.com/vod/mp4:clip" && media.formats[2].url.isEmpty)
        #expect(!media.formats.prefix(3).contains(where: SiteFormatChoice.isFetchable))
    }

    @Test func aPlaylistListsAtMostAThousandEntries() throws {
        let entries = (1...1005).map { "{\"id\": \"\($0)\", \"url\": \"https://site.example/v/\($0)\", \"title\": \"Part \($0)\"}" }
        let json = "{\"_type\": \"playlist\", \"title\": \"Talks\", \"entries\": [\(entries.joined(separator: ",")), {\"url\": \"file:///x\"}]}"
        let media = try SiteMedia.parse(Data(json.utf8))
        #expect(media.isPlaylist && media.entries.count == 1000 && media.entriesLeftOut == 6)
        #expect(media.entries[0] == SiteMedia.Entry(id: "1", title: "Part 1", url: "https://site.example/v/1", duration: nil))
    }
}

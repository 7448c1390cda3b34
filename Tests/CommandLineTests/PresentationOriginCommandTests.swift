import Foundation
import Testing
import TestSupport

/// The secrets a person gave stay with the host of the link they gave, for every request of an
/// HLS or DASH presentation: a variant, key or segment on another host (here `localhost`, the
/// same test server under another name, as a site and its CDN) never gets the hand-given cookie
/// or headers, and gets the page only as its origin. Cookies from a file follow their domains.
struct PresentationOriginCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-origin")
    }

    /// The hand-given secrets and a page on the link's own origin.
    private var options: [String] {
        ["--header", "X-Token: hdr-S3CRET-1", "--header", "Authorization: Bearer auth-S3CRET-2",
         "--cookie", "sid=ck-S3CRET-3", "--referer", server.url("/watch?v=1")]
    }

    private var otherHost: String { "localhost:\(server.port)" }

    private func carriesTheHandGivenParts(_ request: RecordedRequest) -> Bool {
        request["x-token"] == "hdr-S3CRET-1" && request["authorization"] == "Bearer auth-S3CRET-2"
            && request["cookie"]?.contains("sid=ck-S3CRET-3") == true
    }

    private func carriesNoHandGivenPart(_ request: RecordedRequest) -> Bool {
        request["x-token"] == nil && request["authorization"] == nil && request["cookie"]?.contains("S3CRET-3") != true
    }

    /// Checks every request the run made: those to the link's host carry the hand-given parts
    /// and the whole page as Referer; those to `localhost` none of them, the page's origin only.
    private func expectSecretsStayedHome(_ run: FetchplayProcess, link: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "stderr: \(run.standardError)", sourceLocation: sourceLocation)
        #expect(!run.standardOutput.contains("S3CRET") && !run.standardError.contains("S3CRET"), sourceLocation: sourceLocation)
        let requests = server.requests
        let away = requests.filter { $0["host"] == otherHost }
        let home = requests.filter { $0["host"] != otherHost }
        #expect(!away.isEmpty && home.contains { $0.path == link }, "\(requests.map(\.target))", sourceLocation: sourceLocation)
        for request in home {
            #expect(carriesTheHandGivenParts(request), "\(request.target) went without them", sourceLocation: sourceLocation)
            #expect(request["referer"] == server.url("/watch?v=1"), sourceLocation: sourceLocation)
        }
        for request in away {
            #expect(carriesNoHandGivenPart(request), "\(request.target) on \(otherHost) got a secret", sourceLocation: sourceLocation)
            #expect(request["referer"] == server.url("/"), "the page's origin only: \(request["referer"] ?? "none")",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func aVariantAndItsSegmentsOnAnotherHostGetNoHandGivenSecret() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        server.serve("/cross/master.m3u8", body: Array("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            http://\(otherHost)/v360/index.m3u8

            """.utf8))
        // A cookie file's cookie for the other host goes there, by its own domain rule.
        let cookies = try fixture.folder.write(Array("localhost\tFALSE\t/\tFALSE\t0\tcdn\tcdn-value\n".utf8), to: "cookies.txt")
        let run = try fixture.download(server.url("/cross/master.m3u8"), options + ["--cookies", cookies])
        expectSecretsStayedHome(run, link: "/cross/master.m3u8")
        let segments = server.requests.filter { $0.path.hasPrefix("/v360/") && $0.path.hasSuffix(".ts") }
        #expect(segments.count == clip.segments(of: "v360").count)
        #expect(segments.allSatisfy { $0["cookie"] == "cdn=cdn-value" })
    }

    @Test func aKeyOnAnotherHostGetsNoHandGivenSecret() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let playlist = String(decoding: try #require(clip.files["enc/index.m3u8"]), as: UTF8.self)
            .replacingOccurrences(of: "URI=\"key.bin\"", with: "URI=\"http://\(otherHost)/enc/key.bin\"")
        server.serve("/enc/cross.m3u8", body: Array(playlist.utf8))
        let run = try fixture.download(server.url("/enc/cross.m3u8"), options)
        expectSecretsStayedHome(run, link: "/enc/cross.m3u8")
        #expect(server.requests.contains { $0.path == "/enc/key.bin" && $0["host"] == otherHost })
        #expect(server.requests.contains { $0.path.hasPrefix("/enc/seg") && $0["host"] != otherHost })
    }

    @Test func aDASHBaseURLOnAnotherHostGetsNoHandGivenSecret() throws {
        let clip = try Clips.dash()
        clip.serve(on: server)
        let manifest = clip.text("tl/index.mpd")
        let open = try #require(manifest.range(of: "<Period[^>]*>", options: .regularExpression))
        let moved = manifest.replacingCharacters(in: open, with: manifest[open] + "<BaseURL>http://\(otherHost)/tl/</BaseURL>")
        server.serve("/cross/index.mpd", body: Array(moved.utf8), headers: [HTTPHeader("Content-Type", "application/dash+xml")])
        let run = try fixture.download(server.url("/cross/index.mpd"), options)
        expectSecretsStayedHome(run, link: "/cross/index.mpd")
        #expect(server.requests.filter { $0.path.hasPrefix("/tl/") }.allSatisfy { $0["host"] == otherHost })
    }

    /// The other requests a presentation makes, each on `localhost` while its link is on
    /// `127.0.0.1`: an HLS audio rendition's playlist and segments, an `EXT-X-MAP` init section,
    /// a link that redirects to a playlist there (whose own segments follow it), and a DASH
    /// SegmentBase's `sidx` and media.
    @Test(arguments: ["rendition", "init", "redirect", "sidx"]) func everyOtherRequestOnAnotherHostGetsNoHandGivenSecret(kind: String) throws {
        let away = "http://\(otherHost)"
        let link: String
        switch kind {
        case "rendition":
            let clip = try Clips.hls()
            clip.serve(on: server)
            let master = String(decoding: try #require(clip.files["alt/master.m3u8"]), as: UTF8.self)
                .replacingOccurrences(of: "URI=\"audio/", with: "URI=\"\(away)/alt/audio/")
                .replacingOccurrences(of: "URI=\"audio-fr/", with: "URI=\"\(away)/alt/audio-fr/")
                .replacingOccurrences(of: "URI=\"subs/", with: "URI=\"\(server.url("/alt/subs/"))")
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasSuffix(".m3u8") && !$0.hasPrefix("#") ? server.url("/alt/" + $0) : String($0) }.joined(separator: "\n")
            server.serve("/cross/master.m3u8", body: Array(master.utf8))
            link = "/cross/master.m3u8"
        case "init":
            let clip = try Clips.fragmentedHLS()
            clip.serve(on: server)
            let playlist = String(decoding: try #require(clip.files["sep/index.m3u8"]), as: UTF8.self)
                .replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"\(away)/sep/init.mp4\"")
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasSuffix(".m4s") ? server.url("/sep/" + $0) : String($0) }.joined(separator: "\n")
            server.serve("/cross/sep.m3u8", body: Array(playlist.utf8))
            link = "/cross/sep.m3u8"
        case "redirect":
            try Clips.hls().serve(on: server)
            server.serve("/start", body: [], faults: [.redirect(status: 302, location: "\(away)/v360/index.m3u8")], faultyRequests: nil)
            link = "/start"
        default:
            let clip = try Clips.dash()
            clip.serve(on: server)
            let manifest = clip.text("base/index.mpd").replacingOccurrences(of: "<BaseURL>./</BaseURL>", with: "<BaseURL>\(away)/base/</BaseURL>")
            server.serve("/cross/base.mpd", body: Array(manifest.utf8), headers: [HTTPHeader("Content-Type", "application/dash+xml")])
            link = "/cross/base.mpd"
        }
        let run = try fixture.download(server.url(link), options)
        expectSecretsStayedHome(run, link: link)
        let awayPaths = server.requests.filter { $0["host"] == otherHost }.map(\.path)
        let expected = ["rendition": "/alt/audio/", "init": "/sep/init.mp4", "redirect": "/v360/seg", "sidx": "/base/media/"][kind]!
        #expect(awayPaths.contains { $0.hasPrefix(expected) }, "\(awayPaths)")
        if kind == "sidx" { #expect(server.requests.contains { $0["host"] == otherHost && $0["range"] != nil }) }
    }

    @Test func theRefererLosesItsPasswordAndFragmentAndIsTheOriginElsewhere() throws {
        let body = TestData.bytes(count: 100_000, seed: 140)
        server.serve("/final.webm", body: body, etag: "\"f\"")
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: "http://\(otherHost)/final.webm")],
                     faultyRequests: nil)
        let page = "http://user:pa55@127.0.0.1:\(server.port)/watch?v=1#t=30"
        let run = try fixture.download(server.url("/start"), ["--referer", page])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let first = try #require(server.requests(to: "/start").first)
        #expect(first["referer"] == server.url("/watch?v=1"), "no user, password or fragment: \(first["referer"] ?? "none")")
        let final = try #require(server.requests(to: "/final.webm").first)
        #expect(final["referer"] == server.url("/"), "another origin: the page's origin only")
        #expect(!run.standardError.contains("pa55") && !run.standardOutput.contains("pa55"))
    }
}

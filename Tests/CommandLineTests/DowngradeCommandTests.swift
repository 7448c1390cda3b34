import Foundation
import Testing
import TestSupport

/// Nothing of a request context goes from an https link down to plain http: a playlist served
/// over https (nginx with a test certificate) that names its segments on an http server gets
/// them fetched bare, without the cookies, headers or Referer the link carries; https answers
/// are verified, against `--ca-certificate` when given.
struct DowngradeCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-downgrade")
    }

    /// An https nginx serving one media playlist whose segments are the test clip's on the
    /// plain-http test server.
    private func httpsPlaylist(_ certificate: TestCertificate) throws -> (Nginx, TemporaryDirectory) {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let text = String(decoding: try #require(clip.files["v360/index.m3u8"]), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.hasSuffix(".ts") ? server.url("/v360/" + line) : String(line) }
            .joined(separator: "\n")
        let site = try TemporaryDirectory(prefix: "fetchplay-https-site")
        _ = try site.write(Array(text.utf8), to: "index.m3u8")
        return (try Nginx(serving: site.path, certificate: certificate), site)
    }

    @Test func segmentsOverHttpFromAnHttpsPlaylistGetNothingOfTheContext() throws {
        let certificate = try TestCertificate()
        let (nginx, site) = try httpsPlaylist(certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        // A cookie file's plain (not secure) cookie for 127.0.0.1 would match the http segments
        // by its domain: over a downgrade it stays home all the same.
        let cookies = try fixture.folder.write(Array("127.0.0.1\tFALSE\t/\tFALSE\t0\tfile\tfile-S3CRET\n".utf8), to: "cookies.txt")
        let run = try fixture.download(nginx.url("/index.m3u8"), [
            "--ca-certificate", certificate.certificatePath, "--cookies", cookies,
            "--cookie", "sid=ck-S3CRET", "--header", "X-Token: hdr-S3CRET", "--referer", nginx.url("/watch?v=1"),
        ])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let segments = server.requests.filter { $0.path.hasSuffix(".ts") }
        #expect(!segments.isEmpty)
        for request in segments {
            #expect(request["cookie"] == nil && request["x-token"] == nil && request["referer"] == nil,
                    "\(request.target) went over http with a part of the context: \(request.headers)")
        }
        #expect(!run.standardError.contains("S3CRET") && !run.standardOutput.contains("S3CRET"))
    }

    /// The whole context a run is given: cookies by hand and from a file (a plain cookie for
    /// the test server's host), headers, and an https page as Referer.
    private func everySecret(_ certificate: TestCertificate, page: String) throws -> [String] {
        let cookies = try fixture.folder.write(Array("127.0.0.1\tFALSE\t/\tFALSE\t0\tfile\tfile-S3CRET\n".utf8), to: "cookies.txt")
        return ["--ca-certificate", certificate.certificatePath, "--cookies", cookies, "--cookie", "sid=ck-S3CRET",
                "--header", "X-Token: hdr-S3CRET", "--header", "Authorization: Bearer auth-S3CRET",
                "--header", "Proxy-Authorization: Basic pxa-S3CRET", "--referer", page]
    }

    /// Every request that reached the plain-http test server but `/start` went without any part
    /// of the context.
    private func expectBareOverHttp(_ run: FetchplayProcess, suffix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "stderr: \(run.standardError)", sourceLocation: sourceLocation)
        let fetched = server.requests.filter { $0.path != "/start" }
        #expect(fetched.contains { $0.path.hasSuffix(suffix) }, "\(fetched.map(\.target))", sourceLocation: sourceLocation)
        for request in fetched {
            #expect(request["cookie"] == nil && request["x-token"] == nil && request["authorization"] == nil
                        && request["proxy-authorization"] == nil && request["referer"] == nil,
                    "\(request.target) went over http with a part of the context: \(request.headers)", sourceLocation: sourceLocation)
        }
        #expect(!run.standardError.contains("S3CRET") && !run.standardOutput.contains("S3CRET"), sourceLocation: sourceLocation)
    }

    /// The link is plain http on the test server and redirects to the https playlist, which
    /// names its segments back on the link's own host over http: the presentation was served
    /// over https, so they get nothing, though the link's host and scheme are theirs.
    @Test func anHttpLinkRedirectedToAnHttpsPlaylistSendsNothingToItsHttpSegments() throws {
        let certificate = try TestCertificate()
        let (nginx, site) = try httpsPlaylist(certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: nginx.url("/index.m3u8"))], faultyRequests: nil)
        let run = try fixture.download(server.url("/start"), try everySecret(certificate, page: server.url("/watch")))
        #expect(server.requests(to: "/start").first?["x-token"] == "hdr-S3CRET", "the link itself gets the context")
        expectBareOverHttp(run, suffix: ".ts")
    }

    /// A DASH manifest served over https whose BaseURL is plain http, asked for by its https
    /// link and through an http link redirected to it: its init sections and segments get
    /// nothing of the context.
    @Test(arguments: [false, true]) func aDASHManifestOverHttpsSendsNothingToItsHttpSegments(redirected: Bool) throws {
        let clip = try Clips.dash()
        clip.serve(on: server)
        let manifest = clip.text("tl/index.mpd")
        let open = try #require(manifest.range(of: "<Period[^>]*>", options: .regularExpression))
        let moved = manifest.replacingCharacters(in: open, with: manifest[open] + "<BaseURL>\(server.url("/tl/"))</BaseURL>")
        let site = try TemporaryDirectory(prefix: "fetchplay-https-site")
        _ = try site.write(Array(moved.utf8), to: "index.mpd")
        let certificate = try TestCertificate()
        let nginx = try Nginx(serving: site.path, certificate: certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: nginx.url("/index.mpd"))], faultyRequests: nil)
        let link = redirected ? server.url("/start") : nginx.url("/index.mpd")
        let run = try fixture.download(link, try everySecret(certificate, page: nginx.url("/watch")))
        expectBareOverHttp(run, suffix: ".m4s")
    }

    /// A web page served over https (its link plain http, redirected there) whose video is on
    /// the link's own host over http, a file or an HLS playlist: fetched bare.
    @Test(arguments: ["file", "stream"]) func anHttpLinkRedirectedToAnHttpsPageSendsNothingToItsHttpVideo(kind: String) throws {
        let media: String
        if kind == "file" {
            server.serve("/v.webm", body: TestData.bytes(count: 100_000, seed: 141), etag: "\"v\"")
            media = "/v.webm"
        } else {
            try Clips.hls().serve(on: server)
            media = "/v360/index.m3u8"
        }
        let site = try TemporaryDirectory(prefix: "fetchplay-https-site")
        _ = try site.write(Array("<html><head><title>Holiday</title></head><body><video src=\"\(server.url(media))\"></video></body></html>".utf8),
                           to: "page.html")
        let certificate = try TestCertificate()
        let nginx = try Nginx(serving: site.path, certificate: certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: nginx.url("/page.html"))], faultyRequests: nil)
        let run = try fixture.download(server.url("/start"), try everySecret(certificate, page: server.url("/watch")))
        expectBareOverHttp(run, suffix: kind == "file" ? media : ".ts")
    }

    @Test func anHttpsAnswerIsVerified() throws {
        let (nginx, site) = try httpsPlaylist(try TestCertificate())
        defer { withExtendedLifetime(site) { nginx.stop() } }
        // The test certificate is nobody's CA without --ca-certificate: a network error, exit 4.
        let run = try fixture.download(nginx.url("/index.m3u8"))
        #expect(run.status == 4, "stderr: \(run.standardError)")
        #expect(server.requests.isEmpty, "nothing fetched from what an unverified answer named")
    }

    @Test func aCertificateFileThatCannotBeReadIsAUsageError() throws {
        let run = try fixture.download(server.url("/v.webm"), ["--ca-certificate", fixture.folder.file("missing.pem")])
        #expect(run.status == 2 && run.standardError.contains("--ca-certificate"), "stderr: \(run.standardError)")
        #expect(server.requests.isEmpty)
    }
}

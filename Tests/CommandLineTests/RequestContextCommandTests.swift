import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download URL` with what a page knew: `--header`, `--cookie`, `--cookies`,
/// `--referer`, `--user-agent`, as the real binary sends them to a server that records every
/// request, through redirects, several connections, retries, HLS and a resume. No secret of a
/// context is ever printed.
struct RequestContextCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    var cacheDir: String { fixture.cacheDir }
    static let body = TestData.bytes(count: 400_000, seed: 121)

    /// Every secret below holds this word; no output may.
    static let secretMark = "S3CRET"
    static let options = ["--header", "X-Token: hdr-S3CRET-1", "--header", "Authorization: Bearer auth-S3CRET-2",
                          "--cookie", "sid=ck-S3CRET-3; lang=en", "--referer", "http://127.0.0.1/watch?v=1",
                          "--user-agent", "TestBrowser/9.0 (X11)"]

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-context")
    }

    /// The Referer `options` give, as a request to the test server gets it: the page is on port
    /// 80, so another origin, which gets only the page's origin (as browsers send it).
    static let refererSent = "http://127.0.0.1/"

    /// Whether `request` carries everything `options` give (the link's own host).
    static func carriesTheContext(_ request: RecordedRequest) -> Bool {
        request["x-token"] == "hdr-S3CRET-1" && request["authorization"] == "Bearer auth-S3CRET-2"
            && request["cookie"] == "sid=ck-S3CRET-3; lang=en" && request["referer"] == refererSent
            && request["user-agent"] == "TestBrowser/9.0 (X11)"
    }

    /// What a run printed holds no secret.
    static func expectNoSecret(_ run: FetchplayProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!run.standardOutput.contains(secretMark), "stdout: \(run.standardOutput)", sourceLocation: sourceLocation)
        #expect(!run.standardError.contains(secretMark), "stderr: \(run.standardError)", sourceLocation: sourceLocation)
    }

    /// `--list` of the cache, which names no secret either.
    private func expectListNamesNoSecret(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(list.status == 0, sourceLocation: sourceLocation)
        Self.expectNoSecret(list, sourceLocation: sourceLocation)
    }

    /// The context files in the cache.
    private func contextFiles() -> [String] {
        let partial = cacheDir + "/partial"
        return ((try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? [])
            .filter { $0.hasSuffix(".context") }.map { partial + "/" + $0 }
    }

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    private func expectFinished(_ run: FetchplayProcess, _ body: [UInt8] = Self.body,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(run.status == 0, "stderr: \(run.standardError)", sourceLocation: sourceLocation)
        let path = try #require(run.lastLine, sourceLocation: sourceLocation)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body), sourceLocation: sourceLocation)
        #expect(!run.standardError.contains("-CRITICAL") && !run.standardError.contains("-WARNING"),
                "GLib complained: \(run.standardError)", sourceLocation: sourceLocation)
    }

    @Test func everyOptionReachesTheServerAndNoSecretIsPrinted() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"")
        let run = try fixture.download(server.url("/v.webm"), Self.options)
        try expectFinished(run)
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 1)
        #expect(requests.allSatisfy(Self.carriesTheContext), "\(requests.map(\.headers))")
        Self.expectNoSecret(run)
        try expectListNamesNoSecret()
        #expect(contextFiles().isEmpty, "the context goes once the video is whole")
    }

    @Test func headerLinesNamedRefererUserAgentOrCookieAreTakenAsThose() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"")
        let run = try fixture.download(server.url("/v.webm"), ["--header", "Referer: http://127.0.0.1/page",
                                                               "--header", "User-Agent: Hand/1", "--header", "Cookie: a=1; b=2"])
        try expectFinished(run)
        let request = try #require(server.requests(to: "/v.webm").first)
        #expect(request["referer"] == "http://127.0.0.1/" && request["user-agent"] == "Hand/1" && request["cookie"] == "a=1; b=2")
        #expect(request.headers.filter { $0.name == "user-agent" }.count == 1, "one User-Agent, not Fetchplay's beside it")
    }

    @Test func aRedirectToAnotherHostDropsTheHostBoundPartsAndCookiesFollowTheirDomains() throws {
        // localhost and 127.0.0.1 are one server but two hosts, as a site and its CDN.
        server.serve("/final.webm", body: Self.body, etag: "\"f\"")
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: server.url("/final.webm"))],
                     faultyRequests: nil)
        let cookies = try folder.write(Array("""
            # Netscape HTTP Cookie File
            localhost\tFALSE\t/\tFALSE\t0\tsite\tsite-S3CRET-4
            #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tcdn\tcdn-S3CRET-5
            127.0.0.1\tFALSE\t/other\tFALSE\t0\televsewhere\tpath-S3CRET-6
            127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\tsecure-S3CRET-7
            127.0.0.1\tFALSE\t/\tFALSE\t1000000000\texpired\told-S3CRET-8

            """.utf8), to: "cookies.txt")
        let run = try fixture.download("http://localhost:\(server.port)/start", Self.options + ["--cookies", cookies])
        try expectFinished(run)
        let first = try #require(server.requests(to: "/start").first)
        #expect(first["x-token"] == "hdr-S3CRET-1" && first["authorization"] == "Bearer auth-S3CRET-2")
        #expect(first["cookie"] == "sid=ck-S3CRET-3; lang=en; site=site-S3CRET-4")
        let final = try #require(server.requests(to: "/final.webm").first)
        #expect(final["x-token"] == nil && final["authorization"] == nil, "the link's host's headers stay there")
        #expect(final["cookie"] == "cdn=cdn-S3CRET-5", "only the file's cookies for 127.0.0.1, its path, over http, unexpired")
        #expect(final["referer"] == Self.refererSent && final["user-agent"] == "TestBrowser/9.0 (X11)")
        Self.expectNoSecret(run)
    }

    @Test func aRedirectOnTheSameHostKeepsEverything() throws {
        server.serve("/final.webm", body: Self.body, etag: "\"f\"")
        server.serve("/start", body: [], faults: [.redirect(status: 301, location: "/final.webm")], faultyRequests: nil)
        let run = try fixture.download(server.url("/start"), Self.options)
        try expectFinished(run)
        #expect(server.requests(to: "/start").allSatisfy(Self.carriesTheContext))
        #expect(server.requests(to: "/final.webm").count == 1)
        #expect(server.requests(to: "/final.webm").allSatisfy(Self.carriesTheContext))
    }

    @Test func anotherPortIsAnotherHost() throws {
        let other = try FaultServer()
        other.serve("/final.webm", body: Self.body, etag: "\"f\"")
        server.serve("/start", body: [], faults: [.redirect(status: 307, location: other.url("/final.webm"))], faultyRequests: nil)
        let run = try fixture.download(server.url("/start"), Self.options)
        try expectFinished(run)
        let final = try #require(other.requests(to: "/final.webm").first)
        #expect(final["x-token"] == nil && final["authorization"] == nil && final["cookie"] == nil)
        #expect(final["referer"] == Self.refererSent && final["user-agent"] == "TestBrowser/9.0 (X11)")
    }

    @Test func everyConnectionOfASegmentedDownloadCarriesTheContext() throws {
        // 10 MiB at 1.5 MiB/s a connection: the first one's speed says the rest takes seconds,
        // so more connections start, each on its own range.
        let body = TestData.bytes(count: 10 << 20, seed: 122)
        server.serve("/big.bin", body: body, etag: "\"b\"", faults: [.throttle(bytesPerSecond: 3 << 19)], faultyRequests: nil)
        let run = try fixture.download(server.url("/big.bin"), Self.options + ["--connections", "4"])
        try expectFinished(run, body)
        let requests = server.requests(to: "/big.bin")
        #expect(Set(requests.map(\.connection)).count >= 2, "several connections: \(requests.map { $0["range"] ?? "-" })")
        #expect(requests.allSatisfy(Self.carriesTheContext))
        Self.expectNoSecret(run)
    }

    @Test func everyRetryCarriesTheContext() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"", faults: [.dropAfter(bytes: 60_000)], faultyRequests: 2)
        let run = try fixture.download(server.url("/v.webm"), Self.options)
        try expectFinished(run)
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 3)
        #expect(requests.map { $0["range"] } == [nil, "bytes=60000-", "bytes=120000-"])
        #expect(requests.allSatisfy(Self.carriesTheContext))
        Self.expectNoSecret(run)
    }

    @Test(arguments: ["/master.m3u8", "/enc/index.m3u8"])
    func everyPlaylistKeyAndSegmentRequestCarriesTheContext(_ link: String) throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let run = try fixture.download(server.url(link), Self.options)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let requests = server.requests
        let paths = Set(requests.map(\.path))
        #expect(paths.contains(link))
        #expect(requests.contains { $0.path.hasSuffix(".ts") })
        if link.hasPrefix("/enc/") { #expect(paths.contains("/enc/key.bin"), "the key was fetched") }
        for request in requests {
            #expect(Self.carriesTheContext(request), "\(request.target) went without the context")
        }
        Self.expectNoSecret(run)
        #expect(contextFiles().isEmpty)
    }

    @Test func anInterruptedDownloadContinuesWithTheKeptContext() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"", faults: [.throttle(bytesPerSecond: 150_000)], faultyRequests: 1)
        let url = server.url("/v.webm")
        let first = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir] + Self.options, folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { (fixture.partialDurableBytes ?? 0) > 0 })
        first.send(SIGINT)
        #expect(first.waitForExit(timeout: .seconds(5)))
        #expect(first.status == 128 + SIGINT)
        Self.expectNoSecret(first)
        let kept = try #require(contextFiles().first, "the context is kept beside the partial")
        #expect(mode(kept) == 0o600, "readable by its owner only: \(String(mode(kept) ?? 0, radix: 8))")
        try expectListNamesNoSecret()
        let durable = try #require(fixture.partialDurableBytes)

        // Again with no options: the same context, from where it stopped.
        let second = try fixture.download(url, name: "second")
        try expectFinished(second)
        let resumed = try #require(server.requests(to: "/v.webm").last)
        #expect(resumed["range"] == "bytes=\(durable)-")
        #expect(Self.carriesTheContext(resumed), "\(resumed.headers)")
        Self.expectNoSecret(second)
        #expect(contextFiles().isEmpty)
    }

    @Test func optionsGivenAgainReplaceTheKeptContext() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"", faults: [.throttle(bytesPerSecond: 150_000)], faultyRequests: 1)
        let url = server.url("/v.webm")
        let first = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir] + Self.options, folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { (fixture.partialDurableBytes ?? 0) > 0 })
        first.send(SIGINT)
        #expect(first.waitForExit(timeout: .seconds(5)))
        let durable = try #require(fixture.partialDurableBytes)

        let second = try fixture.download(url, name: "second", ["--header", "X-Other: two"])
        try expectFinished(second)
        let resumed = try #require(server.requests(to: "/v.webm").last)
        #expect(resumed["range"] == "bytes=\(durable)-")
        #expect(resumed["x-other"] == "two")
        #expect(resumed["x-token"] == nil && resumed["authorization"] == nil && resumed["cookie"] == nil && resumed["referer"] == nil,
                "nothing of the kept context: \(resumed.headers)")
        #expect(resumed["user-agent"]?.hasPrefix("Fetchplay/") == true)
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        let words: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        BadInput(name: "a header with no colon", arguments: ["--header", "X-Token S3CRET"], words: "“Name: value”"),
        BadInput(name: "a CR in a header", arguments: ["--header", "X-Token: a\rX-Injected: S3CRET"], words: "line breaks"),
        BadInput(name: "an LF in a header", arguments: ["--header", "X-Token: a\nX-Injected: S3CRET"], words: "line breaks"),
        BadInput(name: "a reserved header", arguments: ["--header", "Range: bytes=0-1"], words: "sets the Range header itself"),
        BadInput(name: "a cookie with no value", arguments: ["--cookie", "S3CRET"], words: "--cookie takes cookies"),
        BadInput(name: "a CR in a cookie", arguments: ["--cookie", "a=S3CRET\r\nX: 1"], words: "--cookie takes cookies"),
        BadInput(name: "a missing cookie file", arguments: ["--cookies", "/nonexistent/cookies.txt"],
                 words: "The cookie file /nonexistent/cookies.txt cannot be read"),
        BadInput(name: "a folder for a cookie file", arguments: ["--cookies", "/tmp"], words: "The cookie file /tmp cannot be read"),
        BadInput(name: "an unknown proxy scheme", arguments: ["--proxy", "ftp://user:S3CRET@127.0.0.1:21"],
                 words: "cannot use a ftp proxy"),
        BadInput(name: "a proxy that is no URL", arguments: ["--proxy", "127.0.0.1:3128"], words: "A proxy is given as a URL"),
        BadInput(name: "a referer that is no web page", arguments: ["--referer", "file:///etc/passwd"], words: "--referer takes"),
        BadInput(name: "a user agent with a line break", arguments: ["--user-agent", "UA\r\nX: S3CRET"], words: "user agent"),
    ])
    func badInputIsOneSentenceAndNothingStarts(_ row: BadInput) throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"")
        let run = try fixture.download(server.url("/v.webm"), row.arguments)
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1 && run.standardError.hasPrefix("fetchplay: "), "stderr: \(run.standardError)")
        #expect(run.standardError.contains(row.words), "stderr: \(run.standardError)")
        Self.expectNoSecret(run)
        #expect(server.requests.isEmpty, "nothing was asked of the server")
        #expect(fixture.partialRecord() == nil && contextFiles().isEmpty, "nothing was kept")
    }

    @Test func aMalformedCookieFileNamesItsLine() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"")
        let cookies = try folder.write(Array("# Netscape HTTP Cookie File\nexample.org\tFALSE\t/\tFALSE\t0\ta\tS3CRET\nbroken S3CRET\n".utf8),
                                       to: "cookies.txt")
        let run = try fixture.download(server.url("/v.webm"), ["--cookies", cookies])
        #expect(run.status == 1)
        #expect(run.standardError == "fetchplay: Line 3 of the cookie file \(cookies) is not a Netscape cookie line (seven fields separated by tabs).\n")
        #expect(run.standardOutput.isEmpty)
        #expect(server.requests.isEmpty)
    }

    // root reads any file: there only a folder given as the file (above) is unreadable.
    @Test(.enabled(if: getuid() != 0, "root reads any file"))
    func anUnreadableCookieFileIsRefused() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"v\"")
        let cookies = try folder.write(Array("example.org\tFALSE\t/\tFALSE\t0\ta\tS3CRET\n".utf8), to: "cookies.txt")
        chmod(cookies, 0o000)
        let run = try fixture.download(server.url("/v.webm"), ["--cookies", cookies])
        #expect(run.status == 1)
        #expect(run.standardError.contains("cannot be read"))
        #expect(server.requests.isEmpty)
    }
}

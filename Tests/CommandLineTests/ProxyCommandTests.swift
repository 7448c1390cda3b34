import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` through real proxies started by the test: tinyproxy for http (it adds
/// a `Via` line, so the server's records show the way a request came) and microsocks for socks5
/// with a user and password. A proxy that refuses is a network error that names it, never its
/// password, and the partial stays.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: LocalProxy.tinyproxy)
                    && FileManager.default.isExecutableFile(atPath: LocalProxy.microsocks),
                "needs tinyproxy and microsocks (scripts/install-deps)"))
struct ProxyCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    var cacheDir: String { fixture.cacheDir }
    static let body = TestData.bytes(count: 300_000, seed: 141)
    static let password = "pw-S3CRET"

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-proxy-cli")
        server.serve("/v.webm", body: Self.body, etag: "\"p\"")
    }

    private func expectFinished(_ run: FetchplayProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(run.status == 0, "stderr: \(run.standardError)", sourceLocation: sourceLocation)
        let path = try #require(run.lastLine, sourceLocation: sourceLocation)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body), sourceLocation: sourceLocation)
    }

    private static func cameThroughTinyproxy(_ request: RecordedRequest) -> Bool {
        request["via"]?.contains("tinyproxy") == true
    }

    @Test func throughAnHTTPProxyWithTheContext() throws {
        let proxy = try LocalProxy.http()
        let run = try fixture.download(server.url("/v.webm"), ["--proxy", proxy.url, "--header", "X-Token: t"])
        try expectFinished(run)
        let request = try #require(server.requests(to: "/v.webm").first)
        #expect(Self.cameThroughTinyproxy(request), "\(request.headers)")
        #expect(request["x-token"] == "t")
    }

    @Test func theEnvironmentsProxyIsHonoured() throws {
        let proxy = try LocalProxy.http()
        let run = try FetchplayProcess.run(["--download", server.url("/v.webm"), "--cache-dir", cacheDir], folder: folder,
                                           environment: ["http_proxy": proxy.url, "no_proxy": "", "NO_PROXY": ""])
        try expectFinished(run)
        #expect(server.requests(to: "/v.webm").allSatisfy(Self.cameThroughTinyproxy))
        #expect(!server.requests(to: "/v.webm").isEmpty)
    }

    /// The proxy is chosen anew at every hop of a redirect: the link's host goes through the
    /// environment's proxy, the host it redirects to is in `no_proxy` and gets a direct request.
    @Test func theProxyIsChosenAgainAtEveryHop() throws {
        let proxy = try LocalProxy.http()
        server.serve("/start", body: [], faults: [.redirect(status: 302, location: "http://localhost:\(server.port)/v.webm")],
                     faultyRequests: nil)
        let run = try FetchplayProcess.run(["--download", server.url("/start"), "--cache-dir", cacheDir], folder: folder,
                                           environment: ["http_proxy": proxy.url, "no_proxy": "localhost", "NO_PROXY": "localhost"])
        try expectFinished(run)
        let first = try #require(server.requests(to: "/start").first)
        #expect(Self.cameThroughTinyproxy(first), "\(first.headers)")
        let moved = server.requests(to: "/v.webm")
        #expect(!moved.isEmpty && moved.allSatisfy { !Self.cameThroughTinyproxy($0) && $0["host"] == "localhost:\(server.port)" })
    }

    @Test func throughSOCKS5WithAUserAndPasswordThatIsNeverPrinted() throws {
        let proxy = try LocalProxy.socks5(user: "alice", password: Self.password)
        let run = try fixture.download(server.url("/v.webm"), ["--proxy", proxy.url])
        try expectFinished(run)
        #expect(server.requests(to: "/v.webm").count == 1)
        #expect(!run.standardOutput.contains(Self.password) && !run.standardError.contains(Self.password))

        // The wrong password: the proxy turns it away, so the request really went through it.
        server.serve("/w.webm", body: Self.body, etag: "\"w\"")
        let refused = try fixture.download(server.url("/w.webm"), name: "refused",
                                           ["--proxy", "socks5://alice:wrong-S3CRET@127.0.0.1:\(proxy.port)"])
        #expect(refused.status == 4, "stderr: \(refused.standardError)")
        #expect(refused.standardError.contains("127.0.0.1:\(proxy.port)"), "the proxy is named: \(refused.standardError)")
        #expect(!refused.standardError.contains("S3CRET") && refused.standardOutput.isEmpty)
        #expect(server.requests(to: "/w.webm").isEmpty)
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(!list.standardOutput.contains("S3CRET") && !list.standardError.contains("S3CRET"))
    }

    @Test func aProxyThatRefusesIsANetworkErrorNamingItAndThePartialStays() throws {
        // A partial first: half of it, then the server is gone for the retry.
        server.serve("/half.webm", body: Self.body, etag: "\"h\"", faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.status(404)], to: "/half.webm", requests: nil)
        let url = server.url("/half.webm")
        let first = try fixture.download(url, name: "first")
        #expect(first.status == 3)
        #expect(fixture.partialDurableBytes == 100_000)
        let before = server.requests(to: "/half.webm").count

        let closed = try Loopback.freePort()
        let run = try fixture.download(url, name: "through",
                                       ["--proxy", "http://bob:\(Self.password)@127.0.0.1:\(closed)"])
        #expect(run.status == 4, "stderr: \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        // The partial's progress, then one error line.
        let errors = run.standardError.split(separator: "\n").filter { $0.hasPrefix("fetchplay: ") }
        #expect(errors.count == 1, "one error: \(run.standardError)")
        #expect(errors.first?.hasPrefix("fetchplay: The proxy 127.0.0.1:\(closed) could not be used") == true, "\(run.standardError)")
        #expect(!run.standardError.contains(Self.password) && !run.standardError.contains("bob"))
        #expect(server.requests(to: "/half.webm").count == before, "nothing reached the server")
        #expect(fixture.partialDurableBytes == 100_000, "the partial is kept")
    }
}

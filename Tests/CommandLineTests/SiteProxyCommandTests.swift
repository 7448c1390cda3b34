import Foundation
import Testing
import TestSupport

/// yt-dlp goes the way the engine goes: through the app's proxy (here `FETCHPLAY_PROXY`, a real
/// tinyproxy that marks what it forwards with `Via`), its password in no output, argument or
/// file left behind; and trusting the certificate authorities given with `--ca-certificate`
/// (an https page on nginx with a test certificate), which it refuses without them.
@Suite(.serialized) struct SiteProxyCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-site-proxy")
    }

    /// `--list-videos PAGE` with the run's managed yt-dlp and `environment`.
    private func listVideos(_ page: String, _ arguments: [String] = [], environment: [String: String] = [:],
                            name: String) throws -> FetchplayProcess {
        let site = try SiteSupportFixture.shared.get()
        return try FetchplayProcess.run(["--list-videos", page, "--cache-dir", fixture.cacheDir] + arguments,
                                        folder: fixture.folder, name: name,
                                        environment: ["XDG_DATA_HOME": site.dataHome].merging(environment) { $1 },
                                        timeout: .seconds(120))
    }

    @Test func theAppsProxyCarriesYtDlpsRequestsAndItsPasswordIsNeverShown() throws {
        let proxy = try LocalProxy.http()
        defer { proxy.stop() }
        server.serve("/watch/proxied.html", body: SiteDownloadCommandTests.playerPage(file: "/media/p.mp4", type: "mp4", title: "Via proxy"),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let secret = "px-S3CRET"
        let run = try listVideos(server.url("/watch/proxied.html"),
                                 environment: ["FETCHPLAY_PROXY": "http://fp:\(secret)@127.0.0.1:\(proxy.port)"], name: "proxied")
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardOutput.contains("\tVia proxy\tsite\t"), "\(run.standardOutput)")
        let reads = server.requests(to: "/watch/proxied.html")
        let ytDlp = reads.filter { !($0["user-agent"] ?? "").hasPrefix("Fetchplay/") }
        #expect(!ytDlp.isEmpty, "yt-dlp read the page: \(reads.map { $0["user-agent"] ?? "" })")
        #expect(reads.allSatisfy { ($0["via"] ?? "").contains("tinyproxy") }, "every read went through the proxy")
        #expect(!(run.standardOutput + run.standardError).contains(secret))
        let scratch = (try? FileManager.default.contentsOfDirectory(atPath: fixture.cacheDir + "/sites")) ?? []
        #expect(scratch.isEmpty, "no config file with the proxy is left: \(scratch)")
    }

    @Test func theCertificateAuthoritiesGivenAreYtDlpsToo() throws {
        let certificate = try TestCertificate()
        let site = try TemporaryDirectory(prefix: "fetchplay-site-https")
        chmod(site.path, 0o755)
        let page = try site.write(SiteDownloadCommandTests.playerPage(file: "/clip.mp4", type: "mp4", title: "Over TLS"), to: "page.html")
        chmod(page, 0o644)
        let nginx = try Nginx(serving: site.path, certificate: certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        let trusted = try listVideos(nginx.url("/page.html"), ["--ca-certificate", certificate.certificatePath], name: "trusted")
        #expect(trusted.status == 0, "stderr: \(trusted.standardError)")
        #expect(trusted.standardOutput.contains("\tOver TLS\tsite\t"), "\(trusted.standardOutput)")
        // The same page without them: Fetchplay's own read is refused first, as it should be.
        let refused = try listVideos(nginx.url("/page.html"), name: "refused")
        #expect(refused.status != 0 && refused.standardOutput.isEmpty)
    }
}

import Foundation
import Testing
import TestSupport

/// `fetchplay --update-site-support`: yt-dlp installed into the user's data folder with pip,
/// as the user, a line per step and one naming the version; errors in one sentence.
@Suite(.serialized) struct SiteSupportCommandTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory(prefix: "fetchplay-site-cli") }

    /// The run's one real install (pip from PyPI into a fresh data folder).
    @Test func installMakesAVenvWithPipAndEndsWithTheVersion() throws {
        let fixture = try SiteSupportFixture.shared.get()
        let run = fixture.install
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardError.isEmpty, "pip's words stay out: \(run.standardError)")
        #expect(lines.first == "Making a Python environment in \(fixture.dataHome)/fetchplay/site-support…")
        #expect(lines.contains("Installing yt-dlp with pip…"))
        #expect(lines.contains("Fetching yt-dlp…") && lines.contains("Fetching deno…"), "\(lines)")
        #expect(!run.output.contains("Collecting") && !run.output.contains("Requirement"), "pip's own lines never show")
        let last = try #require(lines.last)
        #expect(last.hasPrefix("Site support is ready: yt-dlp 20"), "\(last)")
        #expect(last.hasSuffix(" in \(fixture.dataHome)/fetchplay/site-support."))
        // Everything is the user's, in the data folder: yt-dlp, yt-dlp-ejs and deno.
        let packages = try FileManager.default.contentsOfDirectory(atPath: fixture.dataHome + "/fetchplay/site-support/lib")
        #expect(packages.count == 1)
        let site = fixture.dataHome + "/fetchplay/site-support/lib/\(packages[0])/site-packages"
        let installed = try FileManager.default.contentsOfDirectory(atPath: site)
        for package in ["yt_dlp", "yt_dlp_ejs", "deno"] {
            #expect(installed.contains(package), "\(package) in \(installed)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: fixture.program))
    }

    /// Once installed, the same command updates it in place (pip finds it up to date).
    @Test func updateKeepsTheVenvAndSaysTheVersionAgain() throws {
        let fixture = try SiteSupportFixture.shared.get()
        let environment = SiteSupportFixture.environment(dataHome: fixture.dataHome, pipCache: fixture.pipCache,
                                                         config: folder.file("config"))
        let run = try Command.run(FetchplayBinary.path, ["--update-site-support"], environment: environment, timeout: .seconds(120))
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(lines.first == "Installing yt-dlp with pip…", "no new venv: \(lines)")
        #expect(lines.last == fixture.install.output.split(separator: "\n").last.map(String.init))
    }

    @Test func withoutPythonItIsOneSentence() throws {
        var environment = SiteSupportFixture.environment(dataHome: folder.file("data"), pipCache: folder.file("pip"),
                                                         config: folder.file("config"))
        environment["PATH"] = folder.path
        let run = try Command.run(FetchplayBinary.path, ["--update-site-support"], environment: environment)
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.standardError == "fetchplay: Site support needs Python 3; install the python3 and python3-venv packages, then try again.\n")
    }

    /// pip that cannot reach its index: its last error line, quoted in one sentence; no
    /// traceback, nothing of pip's on stdout, and no half-made yt-dlp.
    @Test func pipFailingIsOneSentenceWithItsLastErrorLine() throws {
        var environment = SiteSupportFixture.environment(dataHome: folder.file("data"), pipCache: folder.file("pip"),
                                                         config: folder.file("config"))
        environment["PIP_INDEX_URL"] = "http://127.0.0.1:9/simple"
        environment["PIP_RETRIES"] = "0"
        environment["PIP_NO_CACHE_DIR"] = "1"
        let run = try Command.run(FetchplayBinary.path, ["--update-site-support"], environment: environment, timeout: .seconds(120))
        #expect(run.status == 1)
        #expect(run.output == "Making a Python environment in \(folder.file("data"))/fetchplay/site-support…\nInstalling yt-dlp with pip…\n")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(run.standardError.hasPrefix("fetchplay: pip could not install yt-dlp (No matching distribution found for yt-dlp[default,deno])"),
                "\(run.standardError)")
        #expect(!run.standardError.contains("Traceback"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("data") + "/fetchplay/site-support/bin/yt-dlp"))
    }

    /// pip goes the way downloads go: through the proxy given (`--proxy`, a real tinyproxy marks
    /// what it forwards), its password in no output and no file left behind.
    @Test func theProxyGivenCarriesPipsRequestsAndItsPasswordIsNeverShown() throws {
        let server = try FaultServer()
        let proxy = try LocalProxy.http()
        var environment = SiteSupportFixture.environment(dataHome: folder.file("data"), pipCache: folder.file("pip"),
                                                         config: folder.file("config"))
        // Only the proxy given: none of the machine's, and nothing bypassed.
        for name in ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                     "FETCHPLAY_PROXY", "PIP_CONFIG_FILE"] { environment[name] = nil }
        // pip reads its environment over its files: one there must not win over the proxy given.
        environment["PIP_PROXY"] = "http://127.0.0.1:9"
        environment["PIP_INDEX_URL"] = server.url("/simple")
        environment["PIP_RETRIES"] = "0"
        environment["PIP_NO_CACHE_DIR"] = "1"
        let given = "http://fetchplay:pr0xy-s3cret@127.0.0.1:\(proxy.port)"
        let run = try Command.run(FetchplayBinary.path, ["--update-site-support", "--proxy", given], environment: environment,
                                  timeout: .seconds(120))
        #expect(run.status == 1, "no package there: \(run.standardError)")
        let asked = server.requests.filter { $0.target.hasPrefix("/simple/yt-dlp") }
        #expect(!asked.isEmpty, "pip asked \(server.requests.map(\.target))")
        #expect(asked.allSatisfy { $0["via"]?.contains("tinyproxy") == true }, "not through the proxy: \(asked.map { $0["via"] ?? "-" })")
        #expect(!(run.output + run.standardError).contains("pr0xy-s3cret"))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.file("data") + "/fetchplay")
        #expect(left == ["site-support"], "\(left)")
    }

    /// pip trusts the certificate authorities given (`--ca-certificate`): an https package index
    /// on nginx with a test certificate answers its request (a 404: no package there), where
    /// without them pip gives up in the handshake and nginx answers nothing.
    @Test(arguments: [true, false])
    func theCertificateAuthoritiesGivenArePipsToo(given: Bool) throws {
        let certificate = try TestCertificate()
        let site = try TemporaryDirectory(prefix: "fetchplay-index-https")
        chmod(site.path, 0o755)
        let nginx = try Nginx(serving: site.path, certificate: certificate)
        defer { withExtendedLifetime(site) { nginx.stop() } }
        var environment = SiteSupportFixture.environment(dataHome: folder.file("data"), pipCache: folder.file("pip"),
                                                         config: folder.file("config"))
        // A machine's own authorities in the environment (as this one has): the ones given win.
        environment["PIP_CERT"] = "/etc/ssl/certs/ca-certificates.crt"
        environment["REQUESTS_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt"
        environment["CURL_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt"
        for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FETCHPLAY_PROXY",
                     "PIP_PROXY", "PIP_CONFIG_FILE"] { environment[name] = nil }
        environment["PIP_INDEX_URL"] = nginx.url("/simple")
        environment["PIP_RETRIES"] = "0"
        environment["PIP_NO_CACHE_DIR"] = "1"
        let arguments = ["--update-site-support"] + (given ? ["--ca-certificate", certificate.certificatePath] : [])
        let run = try Command.run(FetchplayBinary.path, arguments, environment: environment, timeout: .seconds(120))
        #expect(run.status == 1, "no package there: \(run.standardError)")
        #expect(nginx.accessLog.contains("GET /simple/yt-dlp/") == given, "access log: \(nginx.accessLog)")
    }

    @Test func aChannelOtherThanStableOrNightlyIsRefused() throws {
        let environment = SiteSupportFixture.environment(dataHome: folder.file("data"), pipCache: folder.file("pip"),
                                                         config: folder.file("config"))
        let wrong = try Command.run(FetchplayBinary.path, ["--update-site-support", "--site-support-channel", "weekly"],
                                    environment: environment)
        #expect(wrong.status == 2)
        #expect(wrong.standardError == "fetchplay: --site-support-channel takes stable or nightly.\n")
    }
}

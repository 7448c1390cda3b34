import Foundation
import Testing
import TestSupport

/// `fetchplay --download` given what is no link: paths (absolute, relative, `~/…`) and file
/// names are files on this computer: one sentence, exit 2, nothing requested. Every request the
/// process makes would reach the test server, set as its proxy; a host typed without `https://`
/// does, as https.
struct TypedPathCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-typed")
        _ = try folder.write(TestData.bytes(count: 1000, seed: 1), to: "video.mp4")
        try FileManager.default.createDirectory(atPath: folder.file("clips"), withIntermediateDirectories: true)
    }

    /// Runs in the fixture's folder (which holds `video.mp4` and `clips/`), with it as HOME and
    /// the test server as every proxy.
    private func download(_ text: String) throws -> FetchplayProcess {
        let proxy = "http://127.0.0.1:\(server.port)"
        return try FetchplayProcess.run(["--download", text, "--cache-dir", fixture.cacheDir], folder: folder,
                                        environment: ["HOME": folder.path, "http_proxy": proxy, "https_proxy": proxy,
                                                      "HTTPS_PROXY": proxy, "ALL_PROXY": proxy],
                                        directory: folder.path, timeout: .seconds(30))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let words: [String]
        var testDescription: String { text }
    }

    @Test(arguments: [
        Case(text: "/etc/passwd", words: ["“/etc/passwd” is a file on this computer, not a link", "run: fetchplay /etc/passwd"]),
        Case(text: "./video.mp4", words: ["is a file on this computer", "/video.mp4"]),
        Case(text: "~/video.mp4", words: ["“~/video.mp4” is a file on this computer", "/video.mp4"]),
        Case(text: "video.mp4", words: ["“video.mp4” is a file on this computer", "/video.mp4"]),
        Case(text: "../no-such-folder/video.mp4", words: ["is a path on this computer, not a link, and there is no file there"]),
        Case(text: "clips/video.mp4", words: ["is a path on this computer"]),
        Case(text: "~/clips", words: ["is a path on this computer"]),
        Case(text: "missing.mp4", words: ["“missing.mp4” is not a web address"]),
        Case(text: "clips", words: ["is not a web address"]),
    ])
    func notALinkIsOneSentenceAndExitTwo(_ input: Case) throws {
        let run = try download(input.text)
        #expect(run.status == 2, "stderr: \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.split(separator: "\n").count == 1, "stderr: \(run.standardError)")
        for words in input.words {
            #expect(run.standardError.contains(words), "stderr: \(run.standardError)")
        }
        #expect(!run.standardError.contains("host"), "taken as a host: \(run.standardError)")
        #expect(server.requests.isEmpty, "requested: \(server.requests)")
    }

    @Test func theCommandItSuggestsPlaysFromAnyFolder() throws {
        // The path in the suggestion is absolute, so it works wherever it is pasted.
        let run = try download("./video.mp4")
        #expect(run.standardError.hasSuffix("run: fetchplay \(folder.file("video.mp4"))\n"), "stderr: \(run.standardError)")
    }

    @Test(arguments: ["example.com/v.mp4", "www.example.com/v.mp4"])
    func aHostWithAPublicSuffixMeansHTTPS(_ text: String) throws {
        let run = try download(text)
        #expect(run.status != 0 && run.status != 2, "stderr: \(run.standardError)")
        // Asked through the proxy as https: a tunnel to port 443 of that host.
        let host = String(text.prefix { $0 != "/" })
        #expect(server.requests.first.map { "\($0.method) \($0.target)" } == "CONNECT \(host):443", "requested: \(server.requests)")
    }
}

import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` and `--list` as other tools use them: separate processes, no display,
/// a real HTTP server on 127.0.0.1.
struct DownloadCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    var cacheDir: String { fixture.cacheDir }
    static let body = TestData.bytes(count: 600_000, seed: 3)

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-cli")
    }

    private func download(_ url: String, name: String = "run") throws -> FetchplayProcess {
        try fixture.download(url, name: name)
    }

    private func partialDurableBytes() -> Int64? { fixture.partialDurableBytes }

    @Test func successPrintsThePathLastAndExitsZero() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"")
        let run = try download(server.url("/clip.webm"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix("/") && path.hasSuffix(".webm"))
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
    }

    @Test func relativeCacheFolderStillPrintsAnAbsolutePath() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"")
        let run = try FetchplayProcess.run(["--download", server.url("/clip.webm"), "--cache-dir", "relative-cache"],
                                           folder: folder, directory: folder.path)
        #expect(run.status == 0)
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix(folder.path + "/relative-cache/videos/"), "\(path)")
    }

    @Test func cachedURLCompletesWithoutDownloadingAgain() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"")
        let first = try download(server.url("/clip.webm"), name: "first")
        let second = try download(server.url("/clip.webm"), name: "second")
        #expect(second.status == 0)
        #expect(second.lastLine == first.lastLine)
        #expect(server.requests(to: "/clip.webm").count == 1)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalStopsCleanlyAndASecondRunResumes(_ signal: Int32) throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"", faults: [.throttle(bytesPerSecond: 150_000)])
        let url = server.url("/clip.webm")
        let run = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { (partialDurableBytes() ?? 0) > 0 })
        run.send(signal)
        #expect(run.waitForExit(timeout: .seconds(5)))
        #expect(run.status == 128 + signal)
        #expect(run.standardOutput.isEmpty)
        let durable = try #require(partialDurableBytes())

        let second = try download(url, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        #expect(try sha256Hex(ofFile: #require(second.lastLine)) == sha256Hex(of: Self.body))
        #expect(server.requests(to: "/clip.webm").last?["range"] == "bytes=\(durable)-")
        #expect(server.requests(to: "/clip.webm").last?["if-range"] == "\"a\"")
    }

    @Test func killedProcessLeavesAPartialThatResumes() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"", faults: [.throttle(bytesPerSecond: 150_000)])
        let url = server.url("/clip.webm")
        let run = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { (partialDurableBytes() ?? 0) > 0 })
        run.send(SIGKILL)
        #expect(run.waitForExit(timeout: .seconds(5)))

        let second = try download(url, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        #expect(try sha256Hex(ofFile: #require(second.lastLine)) == sha256Hex(of: Self.body))
        let range = try #require(server.requests(to: "/clip.webm").last?["range"])
        #expect(range.hasPrefix("bytes=") && range != "bytes=0-")
    }

    @Test func twoProcessesOnOneURLNeverShareThePartial() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"", faults: [.throttle(bytesPerSecond: 300_000)])
        // The first cannot finish before the second has tried, however late that starts.
        server.hold("/clip.webm", offsets: Self.body.count / 2..<Self.body.count)
        let url = server.url("/clip.webm")
        let first = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { server.requests(to: "/clip.webm").count == 1 })
        let second = try download(url, name: "second")
        server.release("/clip.webm")
        #expect(second.status == 6)
        #expect(second.standardError.contains("already being downloaded"))
        #expect(first.waitForExit(timeout: .seconds(30)))
        #expect(first.status == 0)
        #expect(try sha256Hex(ofFile: #require(first.lastLine)) == sha256Hex(of: Self.body))
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let url: String
        let status: Int32
        let words: String
        var testDescription: String { url }
    }

    @Test(arguments: [
        BadInput(url: "not a url", status: 2, words: "not a web address"),
        BadInput(url: "file:///etc/passwd", status: 2, words: "not file:"),
        BadInput(url: "ftp://127.0.0.1/video.webm", status: 2, words: "not ftp:"),
    ])
    func badURLGetsOneClearLine(_ input: BadInput) throws {
        let run = try download(input.url)
        #expect(run.status == input.status)
        #expect(run.standardOutput.isEmpty)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(run.standardError.contains(input.words), "stderr: \(run.standardError)")
    }

    @Test func refusedPortIsANetworkError() throws {
        let port = server.port
        server.stop()
        let run = try FetchplayProcess.run(["--download", "http://127.0.0.1:\(port)/v.webm", "--cache-dir", cacheDir],
                                           folder: folder, timeout: .seconds(20))
        #expect(run.status == 4)
        #expect(run.standardError.contains("refused the connection"))
        #expect(run.standardOutput.isEmpty)
    }

    @Test func unknownHostIsNamed() throws {
        // `.invalid` never resolves (RFC 6761).
        let run = try FetchplayProcess.run(["--download", "http://fetchplay-test.invalid/v.webm", "--cache-dir", cacheDir],
                                           folder: folder, timeout: .seconds(30))
        #expect(run.status == 4)
        #expect(run.standardError == "fetchplay: The host fetchplay-test.invalid could not be found; check the link and your network connection.\n")
    }

    @Test func errorStatusIsNamed() throws {
        server.serve("/gone.webm", body: Self.body, faults: [.status(404)], faultyRequests: nil)
        let run = try download(server.url("/gone.webm"))
        #expect(run.status == 3)
        #expect(run.standardError.contains("404 Not Found"))
    }

    @Test func listShowsFinishedAndPartialVideos() throws {
        server.serve("/done.webm", body: Self.body, etag: "\"d\"")
        server.serve("/half.webm", body: Self.body, etag: "\"h\"", faults: [.dropAfter(bytes: 200_000)],
                     faultyRequests: 1)
        server.addFaults([.status(404)], to: "/half.webm", requests: nil)
        _ = try download(server.url("/done.webm"), name: "done")
        _ = try download(server.url("/half.webm"), name: "half")
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(list.status == 0)
        let lines = list.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.count == 2)
        #expect(lines.contains { $0.first == "complete" && $0[1] == "600000/600000" && $0.last == server.url("/done.webm") })
        #expect(lines.contains { $0.first == "partial" && $0[1] == "200000/600000" && $0.last == server.url("/half.webm") })
    }

    @Test func cacheDirectoryComesFromTheEnvironmentToo() throws {
        server.serve("/clip.webm", body: Self.body, etag: "\"a\"")
        let run = try FetchplayProcess.run(["--download", server.url("/clip.webm")], folder: folder,
                                           environment: ["FETCHPLAY_CACHE_DIR": cacheDir])
        #expect(run.status == 0)
        #expect(try #require(run.lastLine).hasPrefix(cacheDir + "/videos/"))
    }

    @Test(arguments: [("/page", "text/html", "<!DOCTYPE html><html><body>a page</body></html>\n", "No video found on this page"),
                      ("/doc", "application/pdf", "%PDF-1.4\n1 0 obj << >> endobj\n", "a PDF document")])
    func documentIsRefusedWithItsOwnExitCode(path: String, type: String, text: String, words: String) throws {
        server.serve(path, body: Array(text.utf8), etag: "\"d\"", headers: [HTTPHeader("Content-Type", type)])
        let run = try download(server.url(path))
        #expect(run.status == 7)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.split(separator: "\n").count == 1)
        #expect(run.standardError.contains(words), "stderr: \(run.standardError)")
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(list.standardOutput.isEmpty, "nothing kept")
    }

    @Test func twoSpellingsOfOneLinkAreOneVideo() throws {
        server.serve("/vid%C3%A9o.webm", body: Self.body, etag: "\"a\"")
        let first = try download("http://127.0.0.1:\(server.port)/vidéo.webm", name: "first")
        let second = try download("HTTP://127.0.0.1:\(server.port)/vid%c3%a9o.webm#start", name: "second")
        #expect(first.status == 0 && second.status == 0, "\(first.standardError) \(second.standardError)")
        #expect(first.lastLine == second.lastLine)
        #expect(server.requests(to: "/vid%C3%A9o.webm").count == 1)
    }

    @Test func videosDirHoldsTheVideoUnderItsNameAndListSaysWhereAndWhatIsMissing() throws {
        server.serve("/Trip.webm", body: Self.body, etag: "\"t\"")
        let videos = folder.file("Videos")
        let run = try FetchplayProcess.run(["--download", server.url("/Trip.webm"), "--cache-dir", cacheDir,
                                            "--videos-dir", videos], folder: folder)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.lastLine == videos + "/Trip.webm")
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir, "--videos-dir", videos], folder: folder, name: "list")
        #expect(list.standardOutput == "complete\t600000/600000\t\(videos)/Trip.webm\t\(server.url("/Trip.webm"))\n")
        try FileManager.default.removeItem(atPath: videos + "/Trip.webm")
        let after = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "after")
        #expect(after.standardOutput.hasPrefix("missing\t0/600000\t\(videos)/Trip.webm\t"), "\(after.standardOutput)")
    }

    /// A tab, a line end or a bidi override in a path would split a row or disguise it: they
    /// are escaped, and each row stays one line of four fields.
    @Test func listEscapesWhatWouldBreakOrDisguiseARow() throws {
        server.serve("/Trip.webm", body: Self.body, etag: "\"t\"")
        let videos = folder.file("My\u{202E}4pm.exe\tand\nmore\u{200B}\\")
        let run = try FetchplayProcess.run(["--download", server.url("/Trip.webm"), "--cache-dir", cacheDir,
                                            "--videos-dir", videos], folder: folder)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir, "--videos-dir", videos], folder: folder, name: "list")
        let shown = folder.path + "/My\\u202E4pm.exe\\tand\\nmore\\u200B\\\\/Trip.webm"
        #expect(list.standardOutput == "complete\t600000/600000\t\(shown)\t\(server.url("/Trip.webm"))\n")
    }

    @Test func versionIsPrinted() throws {
        let run = try FetchplayProcess.run(["--version"], folder: folder)
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("fetchplay "))
        #expect(run.standardOutput.split(separator: " ").last?.split(separator: ".").count == 3)
    }

    @Test func helpWorksWithoutADisplay() throws {
        let run = try FetchplayProcess.run(["--help"], folder: folder)
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("--download"))
        #expect(run.standardOutput.contains("--cache-dir"))
        #expect(run.standardOutput.contains("--speed-limit=KIB"))
    }
}

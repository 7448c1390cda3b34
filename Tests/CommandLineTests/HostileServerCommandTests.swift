import Foundation
import Testing
import TestSupport

/// `fetchplay --download` against a hostile server: the exit code, one line on stderr, nothing
/// on stdout, and no password in anything it prints or keeps.
struct HostileServerCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    var cacheDir: String { fixture.cacheDir }
    static let body = TestData.bytes(count: 400_000, seed: 21)

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-hostile-cli")
    }

    private func download(_ url: String, name: String = "run") throws -> FetchplayProcess {
        try fixture.download(url, name: name)
    }

    private func expectOneLine(_ run: FetchplayProcess, status: Int32, containing words: String) {
        #expect(run.status == status, "stderr: \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.split(separator: "\n").count == 1, "stderr: \(run.standardError)")
        #expect(run.standardError.contains(words), "stderr: \(run.standardError)")
    }

    @Test func compressedBodyIsRefusedWithOneLine() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"z\"",
                     faults: [.header(name: "Content-Encoding", value: "gzip")], faultyRequests: nil)
        expectOneLine(try download(server.url("/v.webm")), status: 1, containing: "Content-Encoding: gzip")
        #expect(server.requests(to: "/v.webm").count == 1)
    }

    @Test func conflictingLengthsAreRefusedWithOneLine() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"z\"",
                     faults: [.header(name: "Content-Length", value: "200000")], faultyRequests: nil)
        expectOneLine(try download(server.url("/v.webm")), status: 1, containing: "conflicting lengths")
    }

    @Test func absurdLengthFailsAtOnceAsADiskProblem() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"z\"",
                     faults: [.announcedLength("1000000000000000000")], faultyRequests: nil)
        expectOneLine(try download(server.url("/v.webm")), status: 5, containing: "free")
        #expect(server.requests(to: "/v.webm").count == 1)
    }

    @Test func passwordIsNeverPrintedNorKept() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"p\"", faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.status(404)], to: "/v.webm", requests: 1)
        let url = "http://user:secret@127.0.0.1:\(server.port)/v.webm"
        let failed = try download(url, name: "first")
        #expect(failed.status == 3)
        let list = try FetchplayProcess.run(["--list", "--cache-dir", cacheDir], folder: folder, name: "list")
        #expect(list.standardOutput.hasSuffix("\thttp://user@127.0.0.1:\(server.port)/v.webm\n"), "\(list.standardOutput)")
        let resumed = try download(url, name: "second")
        #expect(resumed.status == 0)
        #expect(server.requests(to: "/v.webm").last?["range"] == "bytes=100000-")
        for run in [failed, list, resumed] {
            #expect(!(run.standardOutput + run.standardError).contains("secret"))
        }
        let records = try FileManager.default.subpathsOfDirectory(atPath: cacheDir).filter { $0.hasSuffix(".json") }
        #expect(!records.isEmpty)
        for record in records {
            #expect(try !String(contentsOfFile: cacheDir + "/" + record, encoding: .utf8).contains("secret"))
        }
    }
}

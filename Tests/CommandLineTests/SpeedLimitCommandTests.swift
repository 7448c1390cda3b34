import Foundation
import Testing
import TestSupport

/// `fetchplay --download URL --speed-limit KIB`: one limit for all the connections together,
/// measured by what the server sent and when (its send buffer kept small, so that what it
/// counts as sent is what fetchplay took); the file exact.
struct SpeedLimitCommandTests {
    let server: FaultServer
    let folder: TemporaryDirectory
    static let body = TestData.bytes(count: 12 << 20, seed: 61)

    init() throws {
        server = try FaultServer(sendBuffer: 64 << 10)
        folder = try TemporaryDirectory(prefix: "fetchplay-speed")
    }

    @Test func theLimitHoldsForFourConnectionsTogether() throws {
        server.serve("/v.bin", body: Self.body, etag: "\"s\"")
        let kibibytes = 4096
        let run = try FetchplayProcess.run(["--download", server.url("/v.bin"), "--cache-dir", folder.file("cache"),
                                            "--connections", "4", "--speed-limit", "\(kibibytes)"], folder: folder)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(try sha256Hex(ofFile: #require(run.lastLine)) == sha256Hex(of: Self.body))
        #expect(Set(server.requests(to: "/v.bin").map(\.connection)).count >= 4)
        let rate = try #require(server.sentBytes.rate(fromByte: 2 << 20, toByte: 10 << 20))
        print(String(format: "--speed-limit %d: the server sent %.2f MiB/s", kibibytes, rate / Double(1 << 20)))
        #expect(rate <= Double(kibibytes * 1024) * 1.3)
    }

    /// (GLib does not tell an integer option of 0 from none, so 0 is no limit.)
    @Test(arguments: ["-1", "-4096"])
    func aNegativeLimitIsRefusedWithOneSentence(_ value: String) throws {
        let run = try FetchplayProcess.run(["--download", server.url("/v.bin"), "--cache-dir", folder.file("cache"),
                                            "--speed-limit", value], folder: folder)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "fetchplay: --speed-limit takes a number of KiB a second, 0 for no limit.\n")
        #expect(server.requests.isEmpty)
    }
}

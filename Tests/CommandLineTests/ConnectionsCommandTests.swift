import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` with several connections, killed at the worst moments: what is on disk
/// afterwards is exact, and the next run asks only for what is missing.
struct ConnectionsCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    var cacheDir: String { fixture.cacheDir }
    static let body = TestData.bytes(count: 12 << 20, seed: 41)

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-connections")
    }

    private func partialRecord() -> [String: Any]? { fixture.partialRecord() }

    private func durableRanges() -> [Range<Int>] {
        ((partialRecord()?["ranges"] as? [[Int]]) ?? []).map { $0[0]..<$0[1] }
    }

    private func dataFile() -> String? {
        (partialRecord()?["dataFile"] as? String).map { cacheDir + "/partial/" + $0 }
    }

    private func firstByte(_ request: RecordedRequest) -> Int? {
        request["range"].flatMap { Int($0.dropFirst(6).split(separator: "-")[0]) }
    }

    @Test func killedWithFourConnectionsResumesExactlyAskingOnlyForTheHoles() throws {
        // Each connection's 3 MiB takes about 6 s: several checkpoints save four disjoint ranges
        // before the end would delete the record, so the kill lands on one however late it comes.
        server.serve("/v.bin", body: Self.body, etag: "\"k\"", faults: [.throttle(bytesPerSecond: 512 << 10)],
                     faultyRequests: nil)
        let url = server.url("/v.bin")
        let run = try FetchplayProcess(["--download", url, "--cache-dir", cacheDir, "--connections", "4"],
                                       folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(30)) { durableRanges().count >= 3 })
        run.send(SIGKILL)
        #expect(run.waitForExit(timeout: .seconds(5)))
        #expect(run.killedBySignal)
        let ranges = durableRanges()
        let file = try #require(dataFile().flatMap { FileManager.default.contents(atPath: $0) }).map { $0 }
        for range in ranges { #expect(Array(file[range]) == Array(Self.body[range]), "durable \(range) is exact") }
        let before = server.requests(to: "/v.bin").count

        let second = try FetchplayProcess.run(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "second")
        #expect(second.status == 0, "stderr: \(second.standardError)")
        #expect(try sha256Hex(ofFile: #require(second.lastLine)) == sha256Hex(of: Self.body))
        let resumed = server.requests(to: "/v.bin").dropFirst(before)
        #expect(!resumed.isEmpty)
        for request in resumed {
            let first = try #require(firstByte(request), "every resumed request asks for a range")
            #expect(!ranges.contains { $0.contains(first) }, "\(request["range"] ?? "") asks again for bytes on disk")
        }
    }

    /// A download that starts over over an older partial, killed right before or right after the
    /// record that names its new file is saved: the next run ends exact either way.
    @Test(arguments: ["before-replacing-record", "after-replacing-record"])
    func crashAroundTheRecordThatReplacesAPartialLosesNothing(_ point: String) throws {
        let old = TestData.bytes(count: 600_000, seed: 42), new = TestData.bytes(count: 700_000, seed: 43)
        server.serve("/v.bin", body: old, etag: "\"old\"", faults: [.dropAfter(bytes: 200_000)], faultyRequests: 1)
        server.addFaults([.status(404)], to: "/v.bin", requests: 1)
        let url = server.url("/v.bin")
        let first = try FetchplayProcess.run(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "first")
        #expect(first.status == 3)
        #expect(durableRanges() == [0..<200_000])

        // The file changed: If-Range gets the whole new file, slow enough for two checkpoints.
        server.serve("/v.bin", body: new, etag: "\"new\"", faults: [.throttle(bytesPerSecond: 250_000)],
                     faultyRequests: nil)
        let crashed = try FetchplayProcess.run(["--download", url, "--cache-dir", cacheDir], folder: folder,
                                               name: "crashed", environment: ["FETCHPLAY_CRASH_AT": point])
        #expect(crashed.status == 86, "stderr: \(crashed.standardError)")
        let named = try #require(dataFile().flatMap { FileManager.default.contents(atPath: $0) }).map { $0 }
        let expected = point == "after-replacing-record" ? new : old
        for range in durableRanges() {
            #expect(Array(named[range]) == Array(expected[range]), "the record vouches for its own file's bytes")
        }

        server.serve("/v.bin", body: new, etag: "\"new\"")
        let last = try FetchplayProcess.run(["--download", url, "--cache-dir", cacheDir], folder: folder, name: "last")
        #expect(last.status == 0, "stderr: \(last.standardError)")
        #expect(try sha256Hex(ofFile: #require(last.lastLine)) == sha256Hex(of: new))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cacheDir + "/partial").filter { !$0.hasSuffix(".lock") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

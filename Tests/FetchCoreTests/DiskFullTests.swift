@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// A download into a disk that fills up: a tiny tmpfs mounted for the test (needs root, as CI is).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct DiskFullTests {
    @Test func fullDiskPausesWithAnIntactPartial() throws {
        let mountPoint = try TemporaryDirectory(prefix: "fetchplay-tinyfs")
        #expect(Command.runShell("mount -t tmpfs -o size=1m tmpfs '\(mountPoint.path)'") == 0)
        defer { _ = Command.runShell("umount -l '\(mountPoint.path)'") }

        let server = try FaultServer()
        let body = TestData.bytes(count: 3_000_000, seed: 5)
        // Chunked, so no length announces the overflow in advance (that case is the next test).
        server.serve("/big.webm", body: body, etag: "\"big\"", faults: [.chunked], faultyRequests: nil)
        let cache = try Cache(root: mountPoint.path + "/cache")
        let task = try DownloadTask(url: server.url("/big.webm"), cache: cache,
                                    options: DownloadHarness.quickOptions) { _ in }
        task.start()
        #expect(task.wait() == .failed(.diskFull))
        #expect(task.state.canContinue)

        // Whatever the record vouches for is exactly the start of the file.
        let key = Cache.key(for: server.url("/big.webm"))
        // (Checkpoints at every write, as `quickOptions` asks, leave a record before the disk fills.)
        let record = try #require(cache.loadRecord(at: cache.partialPath(key, "json"), key: key),
                                  "partial folder: \((try? FileManager.default.contentsOfDirectory(atPath: cache.root + "/partial")) ?? [])")
        #expect(record.durableBytes > 0)
        let data = try #require(FileManager.default.contents(atPath: cache.partialDirectory + "/" + (record.dataFile ?? "")))
        #expect(data.count >= Int(record.durableBytes))
        #expect(record.durable.ranges == [0..<record.durableBytes], "one connection: a prefix")
        #expect(sha256Hex(of: Array(data.prefix(Int(record.durableBytes))))
                == sha256Hex(of: Array(body.prefix(Int(record.durableBytes)))))
    }

    /// A write that fails on a full disk gives back the blocks it took past what is written,
    /// and never a byte already written: a lone connection rewrites the ranges after a hole.
    @Test func aFailedRewriteKeepsTheBytesAlreadyWritten() throws {
        let mountPoint = try TemporaryDirectory(prefix: "fetchplay-tinyfs")
        #expect(Command.runShell("mount -t tmpfs -o size=1m tmpfs '\(mountPoint.path)'") == 0)
        defer { _ = Command.runShell("umount -l '\(mountPoint.path)'") }
        let cache = try Cache(root: mountPoint.path + "/cache")
        let url = "http://127.0.0.1:1/v.webm"
        let partial = try PartialFile(cache: cache, url: url, displayName: "v.webm")
        try partial.openFresh(partial.record)
        let body = TestData.bytes(count: 768 * 1024, seed: 9)
        let written = 256 * 1024
        try body.withUnsafeBytes { try partial.store(UnsafeRawBufferPointer(rebasing: $0[0..<written]), at: 0) }
        try partial.commit(0..<Int64(written))
        // The rest of the disk goes to another file.
        _ = Command.runShell("cat /dev/zero > '\(mountPoint.path)/filler' 2>/dev/null")
        var failure: DownloadError?
        do {
            // The written range again, then past it: the rewrite fits, the rest does not.
            try body.withUnsafeBytes { try partial.store(UnsafeRawBufferPointer(rebasing: $0[...]), at: 0) }
        } catch {
            failure = error as? DownloadError
        }
        #expect(failure == .diskFull)
        let path = try #require(cache.dataFiles(key: Cache.key(for: url)).first)
        let data = try #require(FileManager.default.contents(atPath: path))
        #expect(data.count >= written)
        // Compared as a Bool: a failed comparison of two arrays this long would be diffed.
        let kept = data.prefix(written).elementsEqual(body.prefix(written))
        #expect(kept, "the written bytes were punched")
    }

    @Test func announcedLengthBeyondTheFreeSpaceFailsAtOnce() throws {
        let mountPoint = try TemporaryDirectory(prefix: "fetchplay-tinyfs")
        #expect(Command.runShell("mount -t tmpfs -o size=1m tmpfs '\(mountPoint.path)'") == 0)
        defer { _ = Command.runShell("umount -l '\(mountPoint.path)'") }

        let server = try FaultServer()
        server.serve("/big.webm", body: TestData.bytes(count: 3_000_000, seed: 5), etag: "\"big\"")
        let cache = try Cache(root: mountPoint.path + "/cache")
        let task = try DownloadTask(url: server.url("/big.webm"), cache: cache,
                                    options: DownloadHarness.quickOptions) { _ in }
        task.start()
        guard case .failed(.tooLarge(let bytes, _)) = task.wait() else {
            Issue.record("state was \(task.state)")
            return
        }
        #expect(bytes == 3_000_000)
        #expect(server.requests(to: "/big.webm").count == 1, "never retried")
        #expect(FileIO.size(of: cache.partialPath(Cache.key(for: server.url("/big.webm")), "part")) ?? 0 == 0)
    }
}

extension Command {
    /// Runs a shell line and returns its exit status.
    static func runShell(_ line: String) -> Int32 {
        (try? run("/bin/sh", ["-c", line], timeout: .seconds(20)).status) ?? -1
    }
}

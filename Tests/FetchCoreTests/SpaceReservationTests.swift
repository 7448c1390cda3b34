@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// A download whose length is known takes its disk blocks at the start, and still reads as a
/// partial of what was written.
struct SpaceReservationTests {
    /// Bytes the filesystem has allocated to `path`, and its size.
    private static func usage(_ path: String) -> (allocated: Int64, size: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_blocks) * 512, Int64(info.st_size))
    }

    @Test func aKnownLengthIsReservedWhileItDownloads() throws {
        let server = try FaultServer()
        let body = TestData.bytes(count: 3_000_000, seed: 71)
        // Slow enough that the download is still under way when the test looks.
        server.serve("/v.webm", body: body, etag: "\"v\"", faults: [.throttle(bytesPerSecond: 500_000)], faultyRequests: nil)
        let harness = try DownloadHarness()
        var options = DownloadHarness.quickOptions
        options.connections = 1
        options.growConnections = false
        let task = try harness.task(server.url("/v.webm"), options: options)
        task.start()
        let key = Cache.key(for: server.url("/v.webm"))
        var seen: (allocated: Int64, size: Int64)?
        #expect(waitUntil(timeout: .seconds(10)) {
            seen = harness.cache.dataFiles(key: key).lazy.compactMap(Self.usage).first { $0.size > 0 }
            return seen != nil
        })
        task.cancel()
        _ = task.wait()
        let usage = try #require(seen)
        #expect(usage.allocated >= Int64(body.count), "allocated \(usage.allocated) of \(body.count)")
        #expect(usage.size < Int64(body.count), "the size is what was written")

        // Continued, it is whole and exact.
        server.serve("/v.webm", body: body, etag: "\"v\"")
        guard case .completed(let path) = try harness.download(server.url("/v.webm"), options: options) else {
            Issue.record("not completed")
            return
        }
        #expect(FileManager.default.contents(atPath: path) == Data(body))
    }

    /// A reservation larger than the free space takes none of it: the download goes on as the
    /// bytes come, and the disk is not left fuller than what was written. On ext4, which keeps
    /// the blocks a failed `fallocate` took (tmpfs gives them back itself): an 8 MiB image.
    @Test(.enabled(if: getuid() == 0 && access("/sbin/mkfs.ext4", X_OK) == 0, "mounting an image needs root and mkfs.ext4"))
    func aReservationThatDoesNotFitTakesNothing() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-tinyext4")
        defer { folder.remove() }
        let image = folder.path + "/disk.img", mountPoint = folder.path + "/mnt"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        #expect(Command.runShell("truncate -s 8M '\(image)' && /sbin/mkfs.ext4 -q -F '\(image)' && mount -o loop '\(image)' '\(mountPoint)'") == 0)
        defer { _ = Command.runShell("umount -l '\(mountPoint)'") }
        let cache = try Cache(root: mountPoint + "/cache")
        let partial = try PartialFile(cache: cache, url: "http://127.0.0.1:1/v.webm", displayName: "v.webm")
        var identity = partial.record
        identity.total = 64 << 20
        try partial.openFresh(identity)
        partial.reserve(total: 64 << 20)
        let path = try #require(cache.dataFiles(key: Cache.key(for: "http://127.0.0.1:1/v.webm")).first)
        let usage = try #require(Self.usage(path))
        #expect(usage.allocated == 0, "allocated \(usage.allocated)")
        #expect(usage.size == 0)
    }
}

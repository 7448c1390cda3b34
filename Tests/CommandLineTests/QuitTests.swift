import Foundation
import Glibc
import Testing
import TestSupport

/// Quitting the window while it is busy: a download with its checkpoints, and the thumbnails and
/// durations of a library of finished videos. SIGTERM (the way a session ends) quits as the Quit
/// action does: every worker ends before the process does, which exits 0 with the partial
/// durable. `scripts/test-asan` runs this test against an AddressSanitizer build, where a
/// thumbnail probe still running during exit() aborted in GObject.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil, "needs a display"))
struct QuitTests {
    let server: FaultServer
    let folder: TemporaryDirectory
    static let body = TestData.bytes(count: 8 << 20, seed: 71)

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-quit")
    }

    /// Finished videos as an earlier run leaves them: one clip under `count` links, each with its
    /// record (the oldest record format, which every version reads).
    private func library(count: Int, in cache: String) throws {
        let clip = try Clips.webm(seconds: 4, width: 1280, height: 720)
        let videos = cache + "/videos"
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        let size = try #require(FileManager.default.attributesOfItem(atPath: clip)[.size] as? Int)
        for index in 0..<count {
            let url = "http://127.0.0.1:1/library-\(index).webm"
            let key = sha256Hex(of: Array(url.utf8))
            try FileManager.default.copyItem(atPath: clip, toPath: "\(videos)/\(key).webm")
            let record: [String: Any] = ["url": url, "displayName": "library-\(index).webm", "total": size,
                                         "durableBytes": size, "created": "2026-01-01T00:00:00Z",
                                         "completed": "2026-01-01T00:00:00Z"]
            try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: "\(videos)/\(key).json"))
        }
    }

    /// The paths of the files `pid` has open now.
    private func openFiles(_ pid: Int32) -> [String] {
        let fds = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)") }
    }

    private func partialRecord(in cache: String) -> [String: Any]? {
        let partial = cache + "/partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
        guard let name = names.first(where: { $0.hasSuffix(".json") }),
              let data = FileManager.default.contents(atPath: partial + "/" + name) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    @Test func sigtermWhileDownloadingAndMakingThumbnailsEndsEveryWorkerFirst() throws {
        let cache = folder.file("cache")
        try library(count: 24, in: cache)
        // About 1 MiB/s over four connections: still running seconds after the window is up.
        server.serve("/big.webm", body: Self.body, etag: "\"q\"", faults: [.throttle(bytesPerSecond: 256 << 10)],
                     faultyRequests: nil)
        let environment = [
            "DISPLAY": ProcessInfo.processInfo.environment["DISPLAY"] ?? "", "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none",
            // No session bus: the window is its own instance whatever else runs.
            "DBUS_SESSION_BUS_ADDRESS": "disabled:",
        ]
        let app = try FetchplayProcess(["--cache-dir", cache, server.url("/big.webm")], folder: folder, name: "window",
                                       environment: environment)
        let pid = app.process.processIdentifier
        // Busy: the partial open and checkpointed, and a library video open at the same moment
        // (its thumbnail or its duration being probed).
        let busy = waitUntil(timeout: .seconds(40)) {
            let open = openFiles(pid)
            return partialRecord(in: cache) != nil
                && open.contains { $0.hasPrefix(cache + "/partial/") && $0.hasSuffix(".part") }
                && open.contains { $0.hasPrefix(cache + "/videos/") && $0.hasSuffix(".webm") }
        }
        #expect(busy, "never saw a download and a thumbnail at once; stderr: \(app.standardError)")
        app.send(SIGTERM)
        let exited = app.waitForExit(timeout: .seconds(40))
        if !exited {
            app.send(SIGKILL)
            app.process.waitUntilExit()
        }
        #expect(exited, "still running 40 s after SIGTERM")
        #expect(!app.killedBySignal && app.status == 0, "status \(app.status); stderr: \(app.standardError)")
        #expect(!app.standardError.contains("AddressSanitizer"), "\(app.standardError)")
        #expect(!app.standardError.contains("CRITICAL"), "\(app.standardError)")
        // The partial stayed, every byte its record vouches for exact, ready to continue.
        let record = try #require(partialRecord(in: cache))
        let ranges = ((record["ranges"] as? [[Int]]) ?? []).map { $0[0]..<$0[1] }
        let file = try #require((record["dataFile"] as? String).flatMap {
            FileManager.default.contents(atPath: cache + "/partial/" + $0)
        })
        #expect(!ranges.isEmpty)
        for range in ranges { #expect(Array(file[range]) == Array(Self.body[range]), "durable \(range) is exact") }
    }
}

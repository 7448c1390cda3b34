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
    static let body = TestData.bytes(count: 24 << 20, seed: 71)
    /// Videos in the library, each with a thumbnail to make.
    static let libraryCount = 80

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-quit")
    }

    /// Finished videos as an earlier run leaves them, each with its record (the oldest record
    /// format, which every version reads). One clip, made distinct for each link by trailing
    /// bytes: thumbnails are cached by content, and the same clip would make one thumbnail only.
    private func library(count: Int, in cache: String) throws {
        let clip = try #require(FileManager.default.contents(atPath: try Clips.webm(seconds: 4, width: 1280, height: 720)))
        let videos = cache + "/videos"
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        for index in 0..<count {
            let url = "http://127.0.0.1:1/library-\(index).webm"
            let key = sha256Hex(of: Array(url.utf8))
            let bytes = clip + Data(repeating: 0, count: index + 1)
            try bytes.write(to: URL(fileURLWithPath: "\(videos)/\(key).webm"))
            let record: [String: Any] = ["url": url, "displayName": "library-\(index).webm", "total": bytes.count,
                                         "durableBytes": bytes.count, "created": "2026-01-01T00:00:00Z",
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

    /// Thumbnails saved so far, one per library video made.
    private func thumbnailCount(in cache: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: cache + "/thumbnails"))?.filter { $0.hasSuffix(".png") }.count ?? 0
    }

    private func partialRecord(in cache: String) -> [String: Any]? {
        let partial = cache + "/partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
        guard let name = names.first(where: { $0.hasSuffix(".json") }),
              let data = FileManager.default.contents(atPath: partial + "/" + name) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// The X window `pid` shows, once it is mapped.
    private func window(of pid: Int32) -> UInt? {
        var window: UInt?
        _ = waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) {
            let found = try? Command.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--pid", "\(pid)"])
            window = found?.output.split(separator: "\n").first.flatMap { UInt($0) }
            return window != nil
        }
        return window
    }

    @Test func sigtermWhileDownloadingAndMakingThumbnailsEndsEveryWorkerFirst() throws {
        try Desktop.ensureWindowManager()
        let cache = folder.file("cache"), config = folder.file("config")
        try library(count: Self.libraryCount, in: cache)
        // Wide enough for the library beside the download.
        try FileManager.default.createDirectory(atPath: config + "/fetchplay", withIntermediateDirectories: true)
        try Data(#"{"width":1200,"height":700,"maximized":false}"#.utf8)
            .write(to: URL(fileURLWithPath: config + "/fetchplay/window.json"))
        // 64 KiB/s a connection: at most 512 KiB/s however many connections grow (up to 8), so
        // still running long after the window is up and the wheel has brought a thumbnail.
        server.serve("/big.webm", body: Self.body, etag: "\"q\"", faults: [.throttle(bytesPerSecond: 64 << 10)],
                     faultyRequests: nil)
        let environment = [
            "DISPLAY": ProcessInfo.processInfo.environment["DISPLAY"] ?? "", "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none", "XDG_CONFIG_HOME": config,
            // No session bus: the window is its own instance whatever else runs.
            "DBUS_SESSION_BUS_ADDRESS": "disabled:",
        ]
        let app = try FetchplayProcess(["--cache-dir", cache, server.url("/big.webm")], folder: folder, name: "window",
                                       environment: environment)
        let pid = app.process.processIdentifier
        let shown = try #require(window(of: pid), "no window appeared: \(app.standardError)")
        // The download checkpointed once: its record is on disk.
        #expect(waitUntil(timeout: .seconds(20)) { partialRecord(in: cache) != nil }, "no checkpoint")
        // Busy: the partial open while thumbnails are being made, seen as a library video open
        // at that moment or as a thumbnail saved since the last look with more still to come
        // (a thumbnail reads its video in short opens that a poll can miss for a whole run).
        // Thumbnails are made for the rows on screen, so the wheel over the library brings new
        // rows until one is being made.
        let geometry = try Desktop.geometry(of: shown)
        let x = (geometry["X"] ?? 0) + (geometry["WIDTH"] ?? 0) * 4 / 5, y = (geometry["Y"] ?? 0) + (geometry["HEIGHT"] ?? 0) / 2
        var busy = false
        var saved = thumbnailCount(in: cache)
        for _ in 0..<200 where !busy {
            busy = waitUntil(timeout: .milliseconds(150), interval: .milliseconds(10)) {
                let open = openFiles(pid)
                let count = thumbnailCount(in: cache)
                defer { saved = count }
                let downloading = open.contains { $0.hasPrefix(cache + "/partial/") && $0.hasSuffix(".part") }
                let making = open.contains { $0.hasPrefix(cache + "/videos/") && $0.hasSuffix(".webm") }
                    || (count > saved && count < Self.libraryCount)
                return downloading && making
            }
            if !busy {
                // Raised first, on its own (chained, it would make the move relative to the
                // window): the wheel must reach this window, whatever another left on top.
                _ = try Desktop.xdotool(["windowactivate", "--sync", "\(shown)"])
                try Desktop.xdotool(["mousemove", "\(x)", "\(y)", "click", "--repeat", "3", "5"])
            }
        }
        #expect(busy, "never saw a download and a thumbnail at once; stderr: \(app.standardError)")
        expectCleanExit(afterSIGTERM: app, within: 40)
        // The partial stayed, every byte its record vouches for exact, ready to continue.
        let record = try #require(partialRecord(in: cache))
        let ranges = ((record["ranges"] as? [[Int]]) ?? []).map { $0[0]..<$0[1] }
        let file = try #require((record["dataFile"] as? String).flatMap {
            FileManager.default.contents(atPath: cache + "/partial/" + $0)
        })
        #expect(!ranges.isEmpty)
        for range in ranges { #expect(Array(file[range]) == Array(Self.body[range]), "durable \(range) is exact") }
    }

    /// SIGTERM while a chooser stands over the window: the chooser goes first, as Cancel, so GTK
    /// never disconnects it from a window already freed (that printed four GLib-CRITICALs).
    @Test func sigtermWithAChooserOpenQuitsCleanly() throws {
        try Desktop.ensureWindowManager()
        server.serve("/master.m3u8", body: Array("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720
            high.m3u8

            """.utf8))
        let environment = [
            "DISPLAY": ProcessInfo.processInfo.environment["DISPLAY"] ?? "", "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none", "XDG_CONFIG_HOME": folder.file("config"),
            "DBUS_SESSION_BUS_ADDRESS": "disabled:",
        ]
        let app = try FetchplayProcess(["--cache-dir", folder.file("cache"), server.url("/master.m3u8")], folder: folder,
                                       name: "chooser", environment: environment)
        let chooser = waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) {
            let found = try? Command.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--name", "Choose a Quality"])
            return found?.status == 0 && found?.output.isEmpty == false
        }
        #expect(chooser, "no chooser appeared: \(app.standardError)")
        expectCleanExit(afterSIGTERM: app, within: 20)
    }

    /// Sends SIGTERM and expects the quit of the Quit action: exit 0 within `seconds`, with no
    /// sanitizer report and no GLib-CRITICAL on stderr.
    private func expectCleanExit(afterSIGTERM app: FetchplayProcess, within seconds: Int) {
        app.send(SIGTERM)
        let exited = app.waitForExit(timeout: .seconds(seconds))
        if !exited {
            app.send(SIGKILL)
            app.process.waitUntilExit()
        }
        #expect(exited, "still running \(seconds) s after SIGTERM")
        #expect(!app.killedBySignal && app.status == 0, "status \(app.status); stderr: \(app.standardError)")
        #expect(!app.standardError.contains("AddressSanitizer"), "\(app.standardError)")
        #expect(!app.standardError.contains("CRITICAL"), "\(app.standardError)")
    }
}

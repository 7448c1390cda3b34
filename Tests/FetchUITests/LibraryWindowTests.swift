import CGtk
import FetchViewModel
import Foundation
import TestSupport
import Testing
@testable import FetchCore
@testable import FetchUI

/// The library in a real window under Xvfb against the test HTTP server: two downloads at once,
/// play through the hook, delete and undo, and the same library after a restart. Screenshots go
/// to `artifacts/ui/library-*.png`.
@Suite(.serialized) @MainActor
struct LibraryWindowTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-library-ui")
    }

    /// Serves a real video (so thumbnails and durations work) slowly enough to overlap.
    ///
    /// - Parameter holdingTail: its last KiB waits for `server.release(path)`, so it cannot
    ///   finish before the test has seen what it waits for.
    func serveClip(_ path: String, seconds: Double, bytesPerSecond: Int, holdingTail: Bool = false) throws -> String {
        let clip = try Clips.webm(seconds: seconds, width: 320, height: 240, audio: false)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        server.serve(path, body: bytes, etag: "\"\(path)\"", faults: [.throttle(bytesPerSecond: bytesPerSecond)])
        if holdingTail { server.hold(path, offsets: bytes.count - 1024..<bytes.count) }
        return server.url(path)
    }

    /// Saves `artifacts/ui/<name>.png`, turning the loop until the window renders (right after a
    /// relayout its render node can be empty).
    func shot(_ window: MainWindow, _ name: String) {
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(window.widget, name) != nil }),
                "no screenshot \(name)")
    }

    func library(_ window: MainWindow) throws -> LibraryCoordinator { try #require(window.library) }

    func rowActivity(_ window: MainWindow, _ url: String) -> LibraryRowModel.Activity? {
        window.library?.view.row(url: url)?.model?.activity
    }

    func finishedOnDisk(_ window: MainWindow) -> Set<String> {
        Set(window.library?.store.items.filter(\.isComplete).map(\.url) ?? [])
    }

    @Test func twoAtOnceThenPlayDeleteUndoAndRestart() throws {
        // Neither can finish before both rows were seen downloading.
        let first = try serveClip("/first.webm", seconds: 3, bytesPerSecond: 60_000, holdingTail: true)
        let second = try serveClip("/second.webm", seconds: 2, bytesPerSecond: 60_000, holdingTail: true)
        let window = try GtkHarness.window(cacheRoot: cache.path)
        let lib = try library(window)
        // An empty library says what will come there (a status page), not a blank pane.
        #expect(runMainLoop(timeout: .seconds(5), until: { !lib.store.isLoading }))
        #expect(lib.view.isEmptyPageVisible)
        shot(window, "library-empty")

        // Two URLs entered one after the other both download at once.
        window.downloadPage.urlText = first
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(10), until: { (window.store?.progress?.bytesDone ?? 0) > 0 }))
        window.downloadPage.urlText = second
        #expect(window.isEnabled(.start), "another URL cannot be added while one downloads")
        window.activate(.start)
        #expect(window.store?.url == second, "the big ring does not show the new download")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.queue.runningURLs.count == 2 }))
        #expect(runMainLoop(timeout: .seconds(5), until: {
            rowActivity(window, first) == .downloading && rowActivity(window, second) == .downloading
        }), "both rows should show their own progress")
        shot(window, "library-two-downloads")
        server.release("/first.webm")
        server.release("/second.webm")

        #expect(runMainLoop(timeout: .seconds(60), until: { finishedOnDisk(window) == [first, second] }),
                "both downloads did not finish and get listed")
        #expect(lib.view.urls.sorted() == [first, second].sorted())
        #expect(!lib.view.isEmptyPageVisible)
        #expect(runMainLoop(timeout: .seconds(20), until: {
            [first, second].allSatisfy { lib.view.row(url: $0)?.hasThumbnail == true }
        }), "no thumbnails")
        #expect(runMainLoop(timeout: .seconds(20), until: { lib.store.items.allSatisfy { $0.duration != nil } }),
                "durations were not probed and stored")
        // The rows show them (the store tells its observers once for the durations of a moment).
        #expect(runMainLoop(timeout: .seconds(5), until: { lib.view.row(url: first)?.model?.detail.contains("0:03") == true }),
                "the row says \(lib.view.row(url: first)?.model?.detail ?? "nothing")")
        shot(window, "library-finished")

        // Selecting a row shows it in the big ring; Enter plays it through the hook.
        lib.view.select(url: nil)
        lib.view.choose(url: first)
        #expect(window.store?.url == first)
        #expect(window.ring.tone == .done)
        var played: String?
        let playObservation = window.observePlays { played = $0 }
        defer { withExtendedLifetime(playObservation) {} }
        lib.view.activateRow(url: first)
        let cached = try #require(window.store?.cache.entry(for: first)?.path)
        #expect(played == cached, "the hook did not receive the cached path")
        #expect(cached.hasPrefix(cache.path) && cached.contains("/videos/"))
        #expect(window.visiblePage == "video")
        window.activate(.back)
        lib.store.flush()
        #expect(Library(cache: try Cache(root: cache.path)).reload().first { $0.url == first }?.lastPlayed != nil,
                "playing did not record lastPlayed")
        // What plays cannot be deleted.
        #expect(!window.isEnabled(.delete))

        // Delete the other one, then undo: the exact bytes come back.
        let secondPath = try #require(window.store?.cache.entry(for: second)?.path)
        let secondHash = try sha256Hex(ofFile: secondPath)
        lib.view.choose(url: second)
        #expect(window.store?.url == second)
        #expect(window.isEnabled(.delete))
        window.activate(.delete)
        #expect(!lib.view.urls.contains(second), "the row did not go at once")
        // The files move off the main thread; the undo bar shows when they have.
        #expect(runMainLoop(timeout: .seconds(5), until: { lib.view.isUndoVisible }))
        #expect(!FileManager.default.fileExists(atPath: secondPath))
        #expect(window.isEnabled(.undo))
        runMainLoop(for: .seconds(0.3)) // the bar slides in
        shot(window, "library-deleted-undo-bar")
        window.activate(.undo)
        #expect(!lib.view.isUndoVisible)
        #expect(runMainLoop(timeout: .seconds(5), until: { lib.view.urls.contains(second) }))
        #expect(try sha256Hex(ofFile: secondPath) == secondHash)
        #expect(window.store?.url == second)

        // A restart (a new window on the same cache) shows the same library.
        let before = lib.store.items.map(\.url)
        GtkHarness.close(window)
        let again = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        #expect(runMainLoop(timeout: .seconds(10), until: { again.library?.view.urls == before }),
                "the library differs after a restart: \(again.library?.view.urls ?? []) against \(before)")
        #expect(runMainLoop(timeout: .seconds(20), until: {
            before.allSatisfy { again.library?.view.row(url: $0)?.hasThumbnail == true }
        }))
        shot(again, "library-after-restart")
    }

    @Test func waitingPausedAndPartialRowsAcrossARestart() throws {
        try LibrarySettings(maxRunning: 1).save(to: try Cache(root: cache.path))
        let slow = try serveClip("/slow.webm", seconds: 4, bytesPerSecond: 30_000)
        let next = try serveClip("/next.webm", seconds: 2, bytesPerSecond: 30_000)
        let window = try GtkHarness.window(cacheRoot: cache.path)
        let lib = try library(window)
        window.downloadPage.urlText = slow
        window.activate(.start)
        window.downloadPage.urlText = next
        window.activate(.start)
        // One slot: the second waits, and says so.
        #expect(window.store?.isWaiting == true)
        #expect(window.downloadPage.statusText.contains("Waiting"))
        #expect(window.isEnabled(.pause) && !window.isEnabled(.continue))
        #expect(runMainLoop(timeout: .seconds(5), until: { rowActivity(window, next) == .waiting }))
        #expect(lib.view.row(url: next)?.toggleAction == "Pause this download")
        #expect(runMainLoop(timeout: .seconds(10), until: { (window.store?.entries[slow]?.progress.bytesDone ?? 0) > 10_000 }))
        shot(window, "library-waiting")

        // Quitting mid-download keeps the partial; the next start lists it ready to continue.
        gtk_window_close(window.widget.as(GtkWindow.self))
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.isAnyRunning == false }))
        let again = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(again) }
        let lib2 = try library(again)
        #expect(runMainLoop(timeout: .seconds(10), until: { lib2.view.row(url: slow)?.model?.activity == .paused }),
                "the partial is not listed")
        #expect(lib2.view.row(url: slow)?.toggleAction == "Continue this download")
        #expect(lib2.view.row(url: slow)?.model?.detail.hasPrefix("Paused") == true)
        #expect(lib2.view.row(url: next) == nil, "a download that never started left a row")
        shot(again, "library-partial-after-restart")

        lib2.view.row(url: slow)?.pressToggle()
        #expect(runMainLoop(timeout: .seconds(5), until: { rowActivity(again, slow) == .downloading }))
        #expect(runMainLoop(timeout: .seconds(60), until: { rowActivity(again, slow) == .finished }))
        #expect(server.requests(to: "/slow.webm").last?["range"] != nil, "Continue did not resume")
    }
}

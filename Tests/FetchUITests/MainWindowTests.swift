import CGtk
import FetchCore
import FetchViewModel
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// The window driven through its actions against the test HTTP server, in a real GTK window
/// under Xvfb. Screenshots of each state go to `artifacts/ui/window-*.png`.
@Suite(.serialized) @MainActor
struct MainWindowTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let body = TestData.bytes(count: 2_000_000)

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui")
    }

    func fileSize(_ path: String?) -> Int64? {
        guard let path, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        else { return nil }
        return size.int64Value
    }

    /// The partial file's size on disk for `url`.
    func partialSize(_ window: MainWindow, _ url: String) -> Int64? {
        guard let entry = window.store?.cache.entry(for: url), !entry.isComplete else { return nil }
        return fileSize(entry.path)
    }

    func fraction(_ window: MainWindow) -> Double { window.store?.progress?.fraction ?? 0 }

    @Test func startPauseContinueCompletePlay() throws {
        server.serve("/clip.webm", body: body, etag: "\"v1\"", faults: [.throttle(bytesPerSecond: 400_000)])
        let url = server.url("/clip.webm")
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }

        #expect(window.isEnabled(.start))
        #expect(!window.isEnabled(.pause) && !window.isEnabled(.continue) && !window.isEnabled(.play))
        #expect(!window.downloadPage.isPlayVisible)

        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(10), until: { fraction(window) > 0.05 }), "the fraction never grew")
        let early = fraction(window)
        #expect(runMainLoop(timeout: .seconds(10), until: { fraction(window) > early + 0.05 }), "the fraction stopped")
        #expect(window.store?.state == .downloading)
        #expect(window.isEnabled(.pause) && !window.isEnabled(.start) && !window.isEnabled(.continue))
        #expect(window.ring.tone == .running)
        #expect(window.downloadPage.statusText.contains(" of "))
        GtkHarness.screenshot(window.widget, "window-downloading")

        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.state == .paused }))
        #expect(window.isEnabled(.continue) && !window.isEnabled(.pause))
        #expect(window.ring.tone == .paused)
        let pausedBytes = window.store?.progress?.bytesDone
        let pausedSize = partialSize(window, url)
        #expect(pausedSize != nil && pausedSize! > 0)
        let requestsWhilePaused = server.requests(to: "/clip.webm").count
        // No bytes arrive while paused: the file stays the same size over many loop turns.
        for _ in 0..<10 {
            runMainLoop(for: .seconds(0.1))
            #expect(partialSize(window, url) == pausedSize)
        }
        #expect(window.store?.progress?.bytesDone == pausedBytes)
        #expect(server.requests(to: "/clip.webm").count == requestsWhilePaused)
        GtkHarness.screenshot(window.widget, "window-paused")

        window.activate(.continue)
        #expect(runMainLoop(timeout: .seconds(30), until: { if case .completed = window.store?.state { true } else { false } }), "the download did not complete")
        #expect(server.requests(to: "/clip.webm").last?["range"] != nil)
        #expect(runMainLoop(timeout: .seconds(5), until: { !window.ring.isAnimating && window.ring.currentFrame.checkmark >= 1 }), "the checkmark did not finish drawing")
        #expect(window.ring.tone == .done)
        #expect(window.downloadPage.isPlayVisible && window.isEnabled(.play))
        #expect(!window.isEnabled(.pause) && !window.isEnabled(.continue))
        if case .completed(let path) = window.store?.state {
            #expect(fileSize(path) == Int64(body.count))
        }
        runMainLoop(timeout: .seconds(0.4), until: { false }) // let the Play button slide in
        let pixels = GtkHarness.screenshot(window.widget, "window-done")
        #expect(pixels != nil)

        var played: String?
        let playObservation = window.observePlays { played = $0 }
        defer { withExtendedLifetime(playObservation) {} }
        window.activate(.play)
        #expect(played != nil)
        #expect(window.visiblePage == "video")
        runMainLoop(for: .seconds(0.4)) // the cross-fade
        GtkHarness.screenshot(window.widget, "window-video-page")
        window.activate(.back)
        #expect(window.visiblePage == "download")
    }

    @Test func badURLShowsAnInlineMessageAndTheAppLivesOn() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = "not a link"
        window.activate(.start)
        #expect(window.downloadPage.urlMessage?.contains("not a web address") == true)
        #expect(window.store?.url == nil)
        GtkHarness.screenshot(window.widget, "window-bad-url")

        window.downloadPage.urlText = "ftp://example.com/video.webm"
        #expect(window.downloadPage.urlMessage == nil, "typing clears the message")
        window.activate(.start)
        #expect(window.downloadPage.urlMessage?.contains("http") == true)

        // Still alive: a good URL works after that.
        server.serve("/ok.webm", body: Array(body.prefix(50_000)), etag: "\"ok\"")
        window.downloadPage.urlText = server.url("/ok.webm")
        window.activate(.start)
        #expect(window.downloadPage.urlMessage == nil)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.isEnabled(.play) }))
    }

    @Test func serverErrorShowsTheErrorStateAndKeepsThePartial() throws {
        server.serve("/flaky.webm", body: body, etag: "\"v1\"", faults: [.throttle(bytesPerSecond: 400_000)],
                     faultyRequests: 1)
        server.addFaults([.status(500)], to: "/flaky.webm", requests: nil)
        let url = server.url("/flaky.webm")
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }

        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(10), until: { fraction(window) > 0.1 }))
        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.state == .paused }))
        let kept = try #require(partialSize(window, url))

        window.activate(.continue)
        // The page shows the store's state at its next refresh, a turn of the main loop later.
        #expect(runMainLoop(timeout: .seconds(30), until: { window.store?.state.isFailed == true && window.downloadPage.errorMessage != nil }))
        #expect(window.downloadPage.errorMessage?.contains("500") == true)
        #expect(window.ring.tone == .failed)
        // With bytes kept, Continue is the retry: no Start, no Try Again, no greyed Pause.
        #expect(!window.isEnabled(.start) && window.isEnabled(.continue) && !window.isEnabled(.pause))
        #expect(gtk_widget_is_visible(window.ui.continueButton) != 0)
        for button in [window.ui.startButton, window.ui.retryButton, window.ui.pauseButton] {
            #expect(gtk_widget_is_visible(button) == 0)
        }
        #expect(!window.downloadPage.isPlayVisible)
        #expect(partialSize(window, url) == kept, "the partial changed")
        GtkHarness.screenshot(window.widget, "window-failed")
    }

    @Test func notFoundWithoutPartialOffersStartOnly() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = server.url("/missing.webm")
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state.isFailed == true }))
        #expect(window.downloadPage.errorMessage?.contains("404") == true)
        #expect(window.isEnabled(.start) && !window.isEnabled(.continue))
        // Try Again, not Start beside it too.
        #expect(gtk_widget_is_visible(window.ui.retryButton) != 0)
        #expect(gtk_widget_is_visible(window.ui.startButton) == 0)
        #expect(gtk_widget_is_visible(window.ui.pauseButton) == 0 && gtk_widget_is_visible(window.ui.continueButton) == 0)
    }

    @Test func reopeningShowsThePartialReadyToContinue() throws {
        server.serve("/resume.webm", body: body, etag: "\"v1\"", faults: [.throttle(bytesPerSecond: 400_000)],
                     faultyRequests: 1)
        let url = server.url("/resume.webm")
        let first = try GtkHarness.window(cacheRoot: cache.path)
        first.downloadPage.urlText = url
        first.activate(.start)
        #expect(runMainLoop(timeout: .seconds(10), until: { fraction(first) > 0.1 }))
        // Closing mid-download hides the window, stops the task, then destroys the window.
        gtk_window_close(first.widget.as(GtkWindow.self))
        #expect(runMainLoop(timeout: .seconds(5), until: { first.store?.isRunning == false }))
        let kept = try #require(partialSize(first, url))

        let second = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(second) }
        second.downloadPage.urlText = url
        #expect(runMainLoop(timeout: .seconds(5), until: { second.isEnabled(.continue) }), "the partial was not shown")
        #expect(second.store?.progress?.bytesDone ?? 0 > 0)
        #expect(second.ring.fraction ?? 0 > 0)
        #expect(second.downloadPage.statusText.contains("ready to continue"))
        GtkHarness.screenshot(second.widget, "window-partial-ready")
        second.activate(.continue)
        // Finished, not only playable: Play is offered as soon as the start is on disk (watching
        // while it downloads), which can be before the server has counted the ranged request.
        #expect(runMainLoop(timeout: .seconds(30), until: { second.store?.state.isCompleted == true }))
        #expect(second.isEnabled(.play))
        let ranges = server.requests(to: "/resume.webm").map { $0["range"] ?? "none" }
        #expect(server.requests(to: "/resume.webm").last?["range"] != nil, "it did not resume: \(ranges), kept \(kept)")
        #expect(kept > 0)
    }


    @Test func actionsCarryTheirKeysAndTheRingIsAProgressBar() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        #expect(GtkHarness.accelerators(.focusURL) == ["<Control>l"])
        #expect(GtkHarness.accelerators(.open) == ["<Control>o"])
        #expect(GtkHarness.accelerators(.quit) == ["<Control>q"])
        #expect(gtk_accessible_get_accessible_role(window.ring.widget.opaque) == GTK_ACCESSIBLE_ROLE_PROGRESS_BAR)

        gtk_widget_grab_focus(window.ui.playRevealer)
        window.activate(.focusURL)
        let focus = gtk_root_get_focus(window.widget.opaque)
        #expect(focus != nil && (focus == window.ui.entry || gtk_widget_is_ancestor(focus, window.ui.entry) != 0))
    }

    /// Each action's handler belongs to the owner its row names, and takes a link exactly when
    /// its row has a parameter: every action installed is found where its buttons look for it.
    @Test func everyHandlerMatchesItsRow() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        for action in FetchplayAction.allCases {
            let row = action.row
            let (scope, takesLink): (FetchplayAction.Scope, Bool) = switch action.handler {
            case .app: (.app, false)
            case .appLink: (.app, true)
            case .window: (.win, false)
            case .windowLink: (.win, true)
            }
            #expect(scope == row.scope && takesLink == (row.parameterType == "s"), "\(action)")
            let group = row.scope == .win ? window.widget.opaque : GtkHarness.app.application.opaque
            #expect(g_action_group_has_action(group, action.name) != 0, "\(action.detailedName) is not installed")
        }
    }
}

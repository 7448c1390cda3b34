import CGtk
import FetchCore
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// Where real key presses and clicks go: xdotool through XTest under openbox, in a real window
/// under Xvfb. Each test asserts the focus, what the player or the server did, and that nothing
/// else reacted (the Open dialog, typing into the link).
@Suite(.serialized) @MainActor
struct KeyboardFocusTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-keys")
    }

    func state(_ window: MainWindow) -> PlayerState? { window.playback.player?.state }

    func completed(_ window: MainWindow) -> Bool {
        if case .completed = window.store?.state { true } else { false }
    }

    /// A window whose selected download of a real clip is complete, the Play button showing.
    func windowWithDownloadedClip(seconds: Double = 6) throws -> (MainWindow, String) {
        let clip = try Clips.webm(seconds: seconds, audio: false)
        server.serve("/clip.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"c\"")
        let url = server.url("/clip.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { completed(window) && window.downloadPage.isPlayVisible }))
        // The Play button slides in; clicks need it where it will stay.
        runMainLoop(timeout: .seconds(3), until: { gtk_revealer_get_child_revealed(window.ui.playRevealer.opaque) != 0 })
        return (window, url)
    }

    @Test func enterStartsTheDownloadThenSpacePausesAndContinuesIt() throws {
        server.serve("/slow.webm", body: TestData.bytes(count: 3_000_000), etag: "\"s\"",
                     faults: [.throttle(bytesPerSecond: 300_000)])
        let url = server.url("/slow.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }

        try RealInput.click(window.ui.entry)
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.entry) }))
        try RealInput.type(url)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == url }), "typed: \(window.downloadPage.urlText)")
        try RealInput.key("Return")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .downloading }))
        #expect(!RealInput.focusIsIn(window, window.ui.entry), "the focus stayed in the entry")

        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .paused }),
                "Space did not pause; focus on \(RealInput.describeFocus(window))")
        #expect(window.downloadPage.urlText == url, "Space went into the link: “\(window.downloadPage.urlText)”")
        let requests = server.requests(to: "/slow.webm").count

        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .downloading }),
                "Space did not continue; focus on \(RealInput.describeFocus(window))")
        #expect(runMainLoop(timeout: .seconds(10), until: { server.requests(to: "/slow.webm").count > requests }))
        #expect(server.requests(to: "/slow.webm").last?["range"] != nil, "it did not resume with a range")
        #expect(window.downloadPage.urlText == url)
        #expect(!GtkHarness.app.isChoosingFile)
        window.activate(.pause)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .paused }))
    }

    @Test func afterPlaySpaceTogglesThePlaybackWhateverWasClicked() throws {
        // Long enough that, played from its middle, it is still playing after the Mute click
        // and the Space that follows (a clip at its end would start again on Space).
        let (window, _) = try windowWithDownloadedClip(seconds: 20)
        defer { GtkHarness.close(window) }

        try RealInput.click(window.ui.playButton)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))
        #expect(window.visiblePage == "video")
        #expect(RealInput.focusIsIn(window, window.playback.view.widget),
                "after Play the focus is on \(RealInput.describeFocus(window))")

        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }),
                "Space did not pause; focus on \(RealInput.describeFocus(window))")
        #expect(!GtkHarness.app.isChoosingFile, "Space opened the file dialog")

        // A click on the seek bar seeks and leaves the keys to the video.
        let controls = window.playback.view.controls
        window.playback.view.revealBars()
        try RealInput.click(controls.seekBar, at: (Double(gtk_widget_get_width(controls.seekBar)) * 0.5,
                                                   Double(gtk_widget_get_height(controls.seekBar)) / 2))
        let seekBar = controls.seekBar.as(GtkRange.self)
        #expect(runMainLoop(timeout: .seconds(5), until: { (window.playback.player?.position ?? 0) > 1.5 }),
                """
                the click did not seek: position \(window.playback.player?.position ?? -1), bar at \
                \(gtk_range_get_value(seekBar)) of \(gtk_adjustment_get_upper(gtk_range_get_adjustment(seekBar))), \
                state \(String(describing: state(window))), \(RealInput.describeScreen("seek-click"))
                """)
        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .playing }),
                "Space after a click on the seek bar; focus on \(RealInput.describeFocus(window))")

        // A click on Mute mutes; Space then toggles playback, not the mute button again.
        window.playback.view.revealBars()
        try RealInput.click(controls.muteButton)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.player?.isMuted == true }))
        try RealInput.key("space")
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }),
                "Space after a click on Mute; focus on \(RealInput.describeFocus(window))")
        #expect(window.playback.player?.isMuted == true)
        #expect(!GtkHarness.app.isChoosingFile)

        // ] and [ step the speed from the keyboard, and the drop-down follows.
        try RealInput.key("bracketright")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.player?.rate == 1.25 }),
                "] did not speed up; focus on \(RealInput.describeFocus(window))")
        try RealInput.key("bracketleft")
        try RealInput.key("bracketleft")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.player?.rate == 0.75 }))
        #expect(controls.selectedRate == 0.75)
    }

    @Test func afterAltLeftEnterDoesNotOpenTheFileDialog() throws {
        let (window, _) = try windowWithDownloadedClip()
        defer { GtkHarness.close(window) }
        try RealInput.click(window.ui.playButton)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))

        try RealInput.key("alt+Left")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }), "leaving did not pause")
        try RealInput.key("Return")
        runMainLoop(timeout: .seconds(2), until: { GtkHarness.app.isChoosingFile || window.visiblePage == "video" })
        #expect(!GtkHarness.app.isChoosingFile, "Enter opened the file dialog; focus on \(RealInput.describeFocus(window))")
    }

    @Test func ctrlLFromTheVideoPageSelectsTheLinkAndTypingStaysInIt() throws {
        let (window, url) = try windowWithDownloadedClip()
        defer { GtkHarness.close(window) }
        try RealInput.click(window.ui.playButton)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))
        try RealInput.key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        #expect(RealInput.focusIsIn(window, window.ui.entry), "focus on \(RealInput.describeFocus(window))")
        var start: Int32 = 0, end: Int32 = 0
        #expect(gtk_editable_get_selection_bounds(window.ui.entry.opaque, &start, &end) != 0)
        #expect(start == 0 && Int(end) == url.count, "the link is not selected: \(start)…\(end)")

        // The video page's plain keys (F fullscreen, M mute, Space) type into the link instead.
        try RealInput.type("fm ")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == "fm " }), "typed: “\(window.downloadPage.urlText)”")
        #expect(!window.playback.isFullscreen)
        #expect(window.playback.player?.isMuted == false)
        #expect(window.visiblePage == "download")
    }

    @Test func enterOnADownloadedLinkPlaysIt() throws {
        let (window, _) = try windowWithDownloadedClip()
        defer { GtkHarness.close(window) }
        try RealInput.click(window.ui.entry)
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.entry) }))
        try RealInput.key("End", "Return")
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }),
                "Enter did not play the downloaded link")
        #expect(window.visiblePage == "video")
    }

    /// A new window with a link in its entry (the run script's sample) starts it on Enter: the
    /// focus starts in the entry, not on the header's Open button.
    @Test func enterInANewWindowWithALinkStartsIt() throws {
        server.serve("/fresh.webm", body: TestData.bytes(count: 300_000), etag: "\"f\"")
        let url = server.url("/fresh.webm")
        let window = try RealInput.window(cacheRoot: cache.path, link: url)
        defer { GtkHarness.close(window) }
        #expect(RealInput.focusIsIn(window, window.ui.entry), "focus on \(RealInput.describeFocus(window))")
        try RealInput.key("Return")
        runMainLoop(timeout: .seconds(10), until: { completed(window) || GtkHarness.app.isChoosingFile })
        #expect(!GtkHarness.app.isChoosingFile, "Enter opened the file dialog; focus on \(RealInput.describeFocus(window))")
        #expect(completed(window), "Enter did not start the link")
        #expect(gtk_editable_get_selection_bounds(window.ui.entry.opaque, nil, nil) == 0, "the link stayed selected behind Play")
    }

    /// In a new window with no videos, typing goes into the link.
    @Test func typingInANewWindowGoesIntoTheLink() throws {
        let empty = try TemporaryDirectory(prefix: "fetchplay-keys-empty")
        defer { empty.remove() }
        let window = try RealInput.window(cacheRoot: empty.path)
        defer { GtkHarness.close(window) }
        try RealInput.type("http://a")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == "http://a" }),
                "typed: “\(window.downloadPage.urlText)”; focus on \(RealInput.describeFocus(window))")
    }

    @Test func ctrlWClosesTheWindow() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        #expect(GtkHarness.isToplevel(window))
        try RealInput.key("ctrl+w")
        #expect(runMainLoop(timeout: .seconds(5), until: { !GtkHarness.isToplevel(window) }),
                "Ctrl+W did not close the window")
        if GtkHarness.isToplevel(window) { GtkHarness.close(window) }
    }

    @Test func ctrlVOutsideTheEntryPutsTheLinkInIt() throws {
        let (window, _) = try windowWithDownloadedClip()
        defer { GtkHarness.close(window) }
        try RealInput.click(window.ui.playButton)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))
        let link = server.url("/another.webm")
        // A link copied from a page, with the newline that often comes along.
        gdk_clipboard_set_text(gdk_display_get_clipboard(gdk_display_get_default()), "\n \(link)\n")
        try RealInput.key("ctrl+v")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == link }), "the entry holds “\(window.downloadPage.urlText)”")
        #expect(window.visiblePage == "download")
        #expect(RealInput.focusIsIn(window, window.ui.entry))
        #expect(window.playback.player?.isMuted == false)
    }
}

import CGtk
import FetchPlayer
import FetchViewModel
import Foundation
import TestSupport
import Testing
@testable import FetchUI

/// Playback in a real window under Xvfb: generated SMPTE clips played through the window's
/// actions, the picture's rendered pixels checked, screenshots in `artifacts/ui/playback-*.png`.
@Suite(.serialized) @MainActor
struct PlaybackTests {
    let cache: TemporaryDirectory

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-playback")
    }

    /// A window playing `path`, with its first frames shown.
    func playing(_ path: String) throws -> MainWindow {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        window.openFile(path: path)
        #expect(window.visiblePage == "video")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.framesShown >= 3 && state(window) == .playing }), "no frames: \(String(describing: state(window)))")
        return window
    }

    func state(_ window: MainWindow) -> PlayerState? { window.playback.player?.state }

    /// A screenshot once the stack's cross-fade to the video page has finished.
    @discardableResult
    func screenshot(_ window: MainWindow, _ name: String) -> Pixels? {
        runMainLoop(timeout: .seconds(2), until: { gtk_stack_get_transition_running(window.ui.stack.opaque) == 0 })
        return GtkHarness.screenshot(window.widget, name)
    }

    func position(_ window: MainWindow) -> Double? {
        guard let player = window.playback.player, !player.isSeeking else { return nil }
        return player.position
    }

    func seekBarValue(_ window: MainWindow) -> Double {
        gtk_range_get_value(window.playback.view.controls.seekBar.as(GtkRange.self))
    }

    @Test func playShowsTheClipsColoursLetterboxed() throws {
        let window = try playing(try Clips.webm(seconds: 3, audio: false))
        defer { GtkHarness.close(window) }
        let picture = window.playback.view.picture
        screenshot(window, "playback-playing")
        let pixels = try #require(GtkHarness.screenshot(picture, "playback-picture"))

        // Where a 320x240 frame lands in the picture: contain, between the bars' room above and below.
        let room = VideoView.barRoom, free = Double(pixels.height) - 2 * room
        let scale = min(Double(pixels.width) / 320, free / 240)
        let width = 320 * scale, height = 240 * scale
        let left = (Double(pixels.width) - width) / 2, top = room + (free - height) / 2
        let bars = [RGBAColor(red: 1, green: 1, blue: 1), RGBAColor(red: 1, green: 1, blue: 0),
                    RGBAColor(red: 0, green: 1, blue: 1), RGBAColor(red: 0, green: 1, blue: 0),
                    RGBAColor(red: 1, green: 0, blue: 1), RGBAColor(red: 1, green: 0, blue: 0),
                    RGBAColor(red: 0, green: 0, blue: 1)]
        for (index, expected) in bars.enumerated() {
            let x = left + width * (Double(index) + 0.5) / 7, y = top + height * 0.3
            let seen = try #require(pixels[x, y])
            #expect(seen.isClose(to: expected, tolerance: 0.2), "bar \(index) at \(x),\(y): \(seen)")
        }
        // The bars' room, and the letterbox of a 4:3 clip in a wider picture, are the picture's
        // own black: not the window's background.
        let black = RGBAColor(red: 0, green: 0, blue: 0)
        for (x, y) in [(Double(pixels.width) / 2, room / 2), (Double(pixels.width) / 2, Double(pixels.height) - room / 2),
                       (left / 2, Double(pixels.height) / 2)] {
            #expect(pixels[x, y]?.isClose(to: black) == true, "at \(x),\(y): \(String(describing: pixels[x, y]))")
        }
        #expect(window.playback.view.frameSize?.width == 320)
    }

    /// `scripts/test` runs this suite under the cairo renderer and again under GL (Mesa's
    /// software GL under Xvfb): frames are textures under GL, cairo surfaces under cairo.
    @Test func framesTakeThePathOfTheWindowsRenderer() throws {
        let window = try playing(try Clips.webm(seconds: 2, audio: false))
        defer { GtkHarness.close(window) }
        let view = window.playback.view
        let native = try #require(gtk_widget_get_native(view.picture))
        let renderer = try #require(gtk_native_get_renderer(native))
        let isCairo = fp_renderer_is_cairo(renderer) != 0
        // A GL run that silently fell back to cairo would test nothing new.
        let asked = ProcessInfo.processInfo.environment["GSK_RENDERER"]
        if asked == "gl" { #expect(!isCairo, "GSK_RENDERER=gl gave \(String(cString: g_type_name_from_instance(renderer.as(GTypeInstance.self))))") }
        if asked == "cairo" { #expect(isCairo) }
        #expect(view.framePath == (isCairo ? .cairo : .texture))
        let prepared = view.paintable.framesPrepared
        #expect(runMainLoop(timeout: .seconds(5), until: { view.paintable.framesPrepared > prepared + 2 }),
                "frames are not painted: \(view.paintable.framesPrepared)")
    }

    @Test func aLargeVideoArrivesScaledToThePicture() throws {
        let window = try playing(try Clips.webm(seconds: 2, width: 1280, height: 720, audio: false))
        defer { GtkHarness.close(window) }
        let view = window.playback.view
        let display = try #require(view.displaySize)
        // GStreamer scales before the frame reaches GTK: no wider than the picture, 16:9 kept.
        #expect(runMainLoop(timeout: .seconds(5), until: { (view.frameSize?.width ?? .max) <= display.width }),
                "frame \(String(describing: view.frameSize)) in a picture of \(display)")
        let frame = try #require(view.frameSize)
        #expect(abs(Double(frame.width) / Double(frame.height) - 16.0 / 9) < 0.02)
    }

    @Test func pauseStopsTheFramesAndPlayGoesOn() throws {
        let window = try playing(try Clips.webm(seconds: 4, audio: false))
        defer { GtkHarness.close(window) }
        window.activate(.togglePlayback)
        // Paused, and the last frame that came is on screen (one may wait for the next paint).
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused && !window.playback.view.pacer.isHolding }))
        let shown = window.playback.view.framesShown
        let delivered = window.playback.player?.framesDelivered
        let frame = window.playback.view.currentFrame
        runMainLoop(for: .seconds(0.5))
        #expect(window.playback.view.framesShown == shown, "frames changed while paused")
        #expect(window.playback.player?.framesDelivered == delivered)
        #expect(window.playback.view.currentFrame === frame, "the picture shows another frame while paused")
        screenshot(window, "playback-paused")

        window.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.view.framesShown > shown + 3 }))
    }

    @Test func theSeekBarMovesWhilePlaying() throws {
        let window = try playing(try Clips.webm(seconds: 4, audio: false))
        defer { GtkHarness.close(window) }
        let start = seekBarValue(window)
        #expect(runMainLoop(timeout: .seconds(5), until: { seekBarValue(window) > start + 0.5 }), "the seek bar stood still")
        let upper = gtk_adjustment_get_upper(gtk_range_get_adjustment(window.playback.view.controls.seekBar.as(GtkRange.self)))
        #expect(abs(upper - 4) < 0.3, "the seek bar's range is not the duration: \(upper)")
    }

    @Test func seekActionsLandNearTheirTargets() throws {
        let window = try playing(try Clips.webm(seconds: 12, audio: false))
        defer { GtkHarness.close(window) }
        window.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }))
        let before = try #require(position(window))
        window.activate(.seekForward)
        #expect(runMainLoop(timeout: .seconds(5), until: { position(window).map { abs($0 - (before + 5)) < 0.2 } == true }),
                "forward: \(String(describing: position(window))), from \(before)")
        window.activate(.seekForward)
        window.activate(.seekBackward)
        #expect(runMainLoop(timeout: .seconds(5), until: { position(window).map { abs($0 - (before + 5)) < 0.2 } == true }),
                "forward then back: \(String(describing: position(window)))")
        #expect(runMainLoop(timeout: .seconds(2), until: { abs(seekBarValue(window) - (before + 5)) < 0.3 }))
        screenshot(window, "playback-seeked")
    }

    @Test func afterTheEndPlayStartsFromTheBeginning() throws {
        let window = try playing(try Clips.webm(seconds: 2, audio: false))
        defer { GtkHarness.close(window) }
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .ended }))
        #expect(window.isEnabled(.togglePlayback))
        window.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .playing }))
        #expect(runMainLoop(timeout: .seconds(5), until: { position(window).map { $0 < 1 } == true }),
                "restarted at \(String(describing: position(window)))")
    }

    @Test func aFileThatIsNotAVideoShowsItsMessageAndTheWindowLivesOn() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.openFile(path: try Clips.textFile())
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.errorMessage != nil }))
        #expect(window.playback.view.errorMessage == PlayerError.notAVideo.message)
        #expect(!window.isEnabled(.togglePlayback))
        screenshot(window, "playback-error")

        window.activate(.back)
        #expect(window.visiblePage == "download")
        window.openFile(path: try Clips.webm(seconds: 2, audio: false))
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.framesShown > 0 }))
        #expect(window.playback.view.errorMessage == nil)
    }

    @Test func thePositionIsRememberedAndOfferedNextTime() throws {
        let clip = try Clips.webm(seconds: 12, audio: false)
        let first = try playing(clip)
        first.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(first) == .paused }))
        // Where the pause landed depends on how busy the machine is; the rest is relative to it.
        let paused = try #require(position(first))
        first.activate(.seekForward)
        #expect(runMainLoop(timeout: .seconds(5), until: { position(first).map { abs($0 - (paused + 5)) < 0.2 } == true }),
                "forward: \(String(describing: position(first))), from \(paused)")
        let there = try #require(position(first))
        // Leaving the video page remembers where it was (in whole tenths).
        first.activate(.back)
        first.playback.positions?.flush()
        let remembered = try #require(first.playback.positions?.position(for: clip))
        #expect(abs(remembered - there) < 0.15, "remembered \(remembered) for \(there)")
        let file = try #require(first.playback.positions?.file)
        #expect(FileManager.default.fileExists(atPath: file))
        GtkHarness.close(first)

        // A new window (a new run) reads the file and resumes there, offering Start Over.
        let second = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(second) }
        second.openFile(path: clip)
        #expect(runMainLoop(timeout: .seconds(10), until: { second.playback.view.framesShown >= 3 && state(second) == .playing }))
        #expect(second.playback.resumedFrom.map { abs($0 - remembered) < 0.01 } == true)
        #expect(second.playback.view.bannerText == String(format: "Resumed from 0:%02d", Int(remembered)))
        #expect(runMainLoop(timeout: .seconds(5), until: { position(second).map { $0 >= remembered - 0.2 } == true }),
                "did not resume: \(String(describing: position(second)))")
        screenshot(second, "playback-resumed")

        second.activate(.startOver)
        #expect(runMainLoop(timeout: .seconds(5), until: { position(second).map { $0 < 1 } == true }))
        #expect(second.playback.view.bannerText == nil)
        second.playback.positions?.flush()
        #expect(second.playback.positions?.position(for: clip) == nil)
    }

    @Test func playbackKeysWorkOnlyOnTheVideoPage() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let keys: [FetchplayAction] = [.togglePlayback, .seekForward, .seekBackward, .volumeUp, .volumeDown, .mute,
                                       .fullscreen, .slower, .faster]
        // On the download page Space, arrows, M and F go to the entry and Pause/Continue.
        for action in keys { #expect(!window.isEnabled(action), "\(action) is enabled on the download page") }

        window.openFile(path: try Clips.webm(seconds: 4, audio: false))
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .playing }))
        for action in keys { #expect(window.isEnabled(action), "\(action) is disabled on the video page") }
        #expect(!window.isEnabled(.pauseOrContinue))

        let player = try #require(window.playback.player)
        window.activate(.volumeDown)
        #expect(abs(player.volume - 0.9) < 0.001)
        window.activate(.mute)
        #expect(player.isMuted)
        window.activate(.mute)
        #expect(!player.isMuted)

        window.activate(.back)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }), "leaving did not pause")
        for action in keys { #expect(!window.isEnabled(action)) }
        // The plain keys live on the video page, never as application accelerators.
        #expect(GtkHarness.accelerators(.seekForward).isEmpty && GtkHarness.accelerators(.fullscreen).isEmpty)
        #expect(FetchplayAction.seekForward.row.keys == ["Right"] && FetchplayAction.seekForward.row.keyScope == .videoPage)
    }

    @Test func bracketKeysStepTheSpeedAndTheControlFollows() throws {
        let window = try playing(try Clips.webm(seconds: 6, audio: false))
        defer { GtkHarness.close(window) }
        let player = try #require(window.playback.player)
        let controls = window.playback.view.controls
        // Plain keys of the video page (pressed for real in KeyboardFocusTests).
        #expect(FetchplayAction.faster.row.keys == ["bracketright"] && FetchplayAction.slower.row.keys == ["bracketleft"])
        #expect(FetchplayAction.faster.row.keyScope == .videoPage && GtkHarness.accelerators(.faster).isEmpty)
        #expect(window.isEnabled(.faster) && window.isEnabled(.slower))
        window.activate(.faster)
        window.activate(.faster)
        #expect(player.rate == 1.5)
        #expect(controls.selectedRate == 1.5, "the drop-down shows \(String(describing: controls.selectedRate))")
        for _ in 0..<5 { window.activate(.faster) }
        #expect(player.rate == 2, "the speed stops at 2x")
        for _ in 0..<8 { window.activate(.slower) }
        #expect(player.rate == 0.5 && controls.selectedRate == 0.5)
        // Choosing in the drop-down sets the player's speed.
        gtk_drop_down_set_selected(controls.speed.opaque, UInt32(VideoControls.rates.firstIndex(of: 1.25)!))
        #expect(player.rate == 1.25)
        #expect(runMainLoop(timeout: .seconds(5), until: { !player.isSeeking && state(window) == .playing }))
        screenshot(window, "playback-speed")
        window.activate(.back)
        #expect(!window.isEnabled(.faster), "[ and ] reach the entry on the download page")
    }

    @Test func theScreenStaysOnWhilePlayingAndMayBlankWhenPaused() throws {
        let window = try playing(try Clips.webm(seconds: 4, audio: false))
        defer { GtkHarness.close(window) }
        let inhibitor = window.playback.idleInhibitor
        #expect(inhibitor.isActive)
        window.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .paused }))
        #expect(!inhibitor.isActive && inhibitor.cookie == 0)
        window.activate(.togglePlayback)
        #expect(runMainLoop(timeout: .seconds(5), until: { state(window) == .playing }))
        #expect(inhibitor.isActive)
        #expect(runMainLoop(timeout: .seconds(10), until: { state(window) == .ended }))
        #expect(!inhibitor.isActive, "the end releases it")
    }

    @Test func theAudioTrackIsChosenInTheControls() throws {
        let window = try playing(try Clips.twoAudioTracks())
        defer { GtkHarness.close(window) }
        let controls = window.playback.view.controls
        let player = try #require(window.playback.player)
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_visible(controls.audio) != 0 }),
                "the audio drop-down shows for two tracks")
        let model = try #require(gtk_drop_down_get_model(controls.audio.opaque))
        #expect(g_list_model_get_n_items(model) == 2)
        #expect(controls.selectedAudioTrack == player.audioTrack)
        gtk_drop_down_set_selected(controls.audio.opaque, 1)
        #expect(player.audioTrack == 1)
        screenshot(window, "playback-audio-tracks")

        // A video with one track hides it again.
        window.openFile(path: try Clips.webm(seconds: 2))
        #expect(runMainLoop(timeout: .seconds(10), until: { gtk_widget_get_visible(controls.audio) == 0 && state(window) == .playing }))
    }
}

import CGtk
import FetchCore
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// The subtitle menu of the video page, by real clicks and keys: it lists Off and the video's
/// tracks, choosing Off hides them, and a subtitle file dropped on the playing video joins it.
@Suite(.serialized) @MainActor
struct SubtitleMenuTests {
    let cache: TemporaryDirectory

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-subtitles")
    }

    /// The drop-down's items, top to bottom.
    func items(_ dropDown: UnsafeMutablePointer<GtkWidget>) -> [String] {
        guard let model = gtk_drop_down_get_model(dropDown.opaque) else { return [] }
        return (0..<g_list_model_get_n_items(model)).compactMap { index in
            gtk_string_list_get_string(model, index).map { String(cString: $0) }
        }
    }

    /// Whether the drop-down's popover shows (it is one of the drop-down's own children).
    func isOpen(_ dropDown: UnsafeMutablePointer<GtkWidget>) -> Bool {
        var child = gtk_widget_get_first_child(dropDown)
        while let current = child {
            if String(cString: gtk_widget_get_css_name(current)) == "popover", gtk_widget_get_mapped(current) != 0 { return true }
            child = gtk_widget_get_next_sibling(current)
        }
        return false
    }

    @Test func theMenuListsTheTracksAndOffHidesThem() throws {
        let clip = try Clips.embeddedSubtitles(seconds: 6)
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.openFile(path: clip)
        let player = try #require(window.playback.player)
        let menu = window.playback.view.controls.subtitles
        #expect(runMainLoop(timeout: .seconds(10), until: { gtk_widget_get_visible(menu) != 0 }), "no subtitle menu")
        let names = items(menu)
        #expect(names.count == 2 && names.first == "Off", "items: \(names)")
        #expect(player.subtitleTrack == 0, "the file's track shows at first")

        // Click the menu, then Home and Enter: Off.
        window.playback.view.revealBars()
        try RealInput.click(menu)
        #expect(runMainLoop(timeout: .seconds(5), until: { isOpen(menu) }), "the menu did not open")
        try RealInput.key("Home")
        try RealInput.key("Return")
        #expect(runMainLoop(timeout: .seconds(5), until: { player.subtitleTrack == nil }),
                "Off did not reach the player; focus on \(RealInput.describeFocus(window))")
        #expect(gtk_drop_down_get_selected(menu.opaque) == 0)
    }

    @Test func aSubtitleFileDroppedOnThePlayingVideoJoinsIt() throws {
        let clip = try Clips.blackVideo(seconds: 6, withSubtitles: false)
        let added = try Clips.subRip("ADDED", named: "dropped.srt")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.openFile(path: clip)
        let player = try #require(window.playback.player)
        #expect(runMainLoop(timeout: .seconds(10), until: { player.state == .playing }))
        #expect(gtk_widget_get_visible(window.playback.view.controls.subtitles) == 0, "a menu with nothing in it")

        window.dropped(paths: [added], links: [])
        #expect(runMainLoop(timeout: .seconds(10), until: { player.subtitleTracks.contains { $0.file == added } }))
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_visible(window.playback.view.controls.subtitles) != 0 }))
        #expect(window.visiblePage == "video" && player.path == clip, "the drop opened the subtitle as a video")
    }
}

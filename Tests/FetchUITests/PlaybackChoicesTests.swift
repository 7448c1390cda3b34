import CGtk
import FetchCore
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// The speed, audio track and subtitles chosen while watching a downloaded video are kept in its
/// record, and the next play starts with them; a local file outside the library keeps none.
@Suite(.serialized) @MainActor
struct PlaybackChoicesTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-choices")
    }

    /// A window that downloaded `path` as `name` and plays it.
    func playing(_ path: String, as name: String) throws -> MainWindow {
        server.serve("/\(name)", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), etag: "\"\(name)\"")
        let url = server.url("/\(name)")
        let window = try RealInput.window(cacheRoot: cache.path)
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: {
            window.isEnabled(.play) && window.library?.store.item(url: url)?.isComplete == true
        }))
        window.activate(.play)
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.player?.state == .playing }))
        return window
    }

    @Test func speedAndAudioTrackComeBackNextTime() throws {
        let window = try playing(try Clips.twoAudioTracks(seconds: 6), as: "two.mkv")
        let player = try #require(window.playback.player)
        #expect(runMainLoop(timeout: .seconds(5), until: { player.audioTracks.count == 2 }))
        window.activate(.faster)
        window.activate(.faster)
        gtk_drop_down_set_selected(window.playback.view.controls.audio.opaque, 1) // as a click does
        #expect(player.rate == 1.5 && player.audioTrack == 1)
        window.playback.positions?.flush()
        let item = try #require(Library(cache: try Cache(root: cache.path)).reload().first { $0.displayName == "two.mkv" })
        #expect(item.choices == PlaybackChoices(rate: 1.5, audioTrack: 1), "the record has \(String(describing: item.choices))")
        GtkHarness.close(window)

        let again = try playing(try Clips.twoAudioTracks(seconds: 6), as: "two.mkv")
        defer { GtkHarness.close(again) }
        let next = try #require(again.playback.player)
        #expect(runMainLoop(timeout: .seconds(10), until: { next.rate == 1.5 && next.audioTrack == 1 }),
                "started at \(next.rate)x on track \(String(describing: next.audioTrack))")
        #expect(again.playback.view.controls.selectedRate == 1.5 && again.playback.view.controls.selectedAudioTrack == 1)
    }

    @Test func subtitlesTurnedOffStayOff() throws {
        let window = try playing(try Clips.embeddedSubtitles(seconds: 6), as: "subtitled.mkv")
        let player = try #require(window.playback.player)
        #expect(runMainLoop(timeout: .seconds(5), until: { player.subtitleTrack == 0 }))
        gtk_drop_down_set_selected(window.playback.view.controls.subtitles.opaque, 0) // Off
        #expect(runMainLoop(timeout: .seconds(5), until: { player.subtitleTrack == nil }))
        window.playback.positions?.flush()
        GtkHarness.close(window)

        let again = try playing(try Clips.embeddedSubtitles(seconds: 6), as: "subtitled.mkv")
        defer { GtkHarness.close(again) }
        let next = try #require(again.playback.player)
        #expect(runMainLoop(timeout: .seconds(5), until: { !next.subtitleTracks.isEmpty }))
        // What was chosen (Off), not the file's default track.
        #expect(runMainLoop(timeout: .seconds(5), until: { next.subtitleTrack == nil && again.playback.view.controls.selectedSubtitle == .some(nil) }), "subtitles: \(String(describing: next.subtitleTrack))")
    }
}

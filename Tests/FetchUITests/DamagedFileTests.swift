import CGtk
import FetchPlayer
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A video that ends before its stated length (a download cut short, a damaged file) says so
/// instead of letting the seek bar jump to the end.
@Suite(.serialized) @MainActor
struct DamagedFileTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-damaged")
    }

    @Test func aTruncatedVideoSaysItEndsEarly() throws {
        let clip = try Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 12, audio: false)))
        // The first 40 %: the header still says 12 s.
        let cut = folder.file("cut.webm")
        try clip.prefix(clip.count * 4 / 10).write(to: URL(fileURLWithPath: cut))
        let window = try RealInput.window(cacheRoot: folder.file("cache"))
        defer { GtkHarness.close(window) }
        window.openFile(path: cut)
        #expect(runMainLoop(timeout: .seconds(30), until: {
            window.playback.player?.state == .ended || window.playback.view.errorMessage != nil
        }), "it neither ended nor failed")
        let message = try #require(window.playback.view.errorMessage, "no message about the early end")
        #expect(message.contains("ends early") && message.contains("of 0:12"), "\(message)")
        let stop = try #require(window.playback.endedEarlyAt)
        #expect(stop > 1 && stop < 8, "stopped at \(stop)")
        // The seek bar stays where the pictures stopped.
        let value = gtk_range_get_value(window.playback.view.controls.seekBar.as(GtkRange.self))
        #expect(abs(value - stop) < 0.5, "the seek bar jumped to \(value)")
        GtkHarness.screenshot(window.widget, "playback-ends-early")
    }
}

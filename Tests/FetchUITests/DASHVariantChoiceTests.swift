import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A DASH manifest in the window, typed and clicked for real under openbox: its video
/// Representations are offered as an HLS master's variants are, the best chosen to begin with,
/// and the one chosen is the one saved. Screenshot: `artifacts/ui/dash-variant-chooser.png`.
@Suite(.serialized) @MainActor
struct DASHVariantChoiceTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let clip: DASHClip

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-dash-variants")
        clip = try Clips.dash()
        clip.serve(on: server)
    }

    @Test func theRepresentationChosenIsTheOneSaved() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let url = server.url("/multi/index.mpd")
        try RealInput.key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.entry) }))
        try RealInput.type(url)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == url }), "typed: \(window.downloadPage.urlText)")
        try RealInput.key("Return")
        let shown = runMainLoop(timeout: .seconds(15), until: {
            window.variantChooser?.isShown == true && window.variantChooser.map { RealInput.focusIsIn($0) } == true
        })
        #expect(shown, "no chooser: \(RealInput.describeScreen("dash-variant-chooser-missing"))")
        let chooser = try #require(window.variantChooser)
        let labels = chooser.choices.map { String(cString: gtk_check_button_get_label($0.as(GtkCheckButton.self))) }
        #expect(labels.count == 2 && labels[0].hasPrefix("360p") && labels[1].hasPrefix("180p"), "\(labels)")
        #expect(chooser.chosen?.height == 360, "the best is chosen to begin with")
        #expect(server.requests.allSatisfy { !$0.path.hasSuffix(".m4s") }, "nothing before a choice")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "dash-variant-chooser") != nil }))

        try RealInput.click(chooser.choices[1])
        #expect(runMainLoop(timeout: .seconds(5), until: { chooser.chosen?.height == 180 }),
                "the click missed: \(RealInput.describeScreen("dash-variant-click"))")
        try RealInput.click(try #require(chooser.button(VariantChooser.download)))
        #expect(runMainLoop(timeout: .seconds(60), until: { window.store?.state.isCompleted == true }),
                "the chosen Representation did not download: \(String(describing: window.store?.state))")
        let path = try #require(window.store?.state.completedPath)
        let media = try DiscoveredMedia.probe(path)
        #expect(media.height == 180 && media.audioStreams == 1, "\(media)")
        #expect(abs(media.duration - clip.seconds) < 0.1)
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/multi/chunk-stream0-") }, "the other video is not fetched")
    }
}

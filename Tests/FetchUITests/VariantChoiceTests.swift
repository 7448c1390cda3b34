import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// An HLS master in the window, typed, clicked and keyed for real under openbox: the variants
/// are offered before anything downloads, the best chosen to begin with; the one chosen is the
/// one saved, and Escape starts nothing. Screenshot: `artifacts/ui/hls-variant-chooser.png`.
@Suite(.serialized) @MainActor
struct VariantChoiceTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let clip: HLSClip

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-variants")
        clip = try Clips.hls()
        clip.serve(on: server)
    }

    /// Types `url` into the entry and presses Enter, as a person does.
    private func enter(_ url: String, in window: MainWindow) throws {
        try RealInput.key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.focusIsIn(window, window.ui.entry) }))
        try RealInput.type(url)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.downloadPage.urlText == url }), "typed: \(window.downloadPage.urlText)")
        try RealInput.key("Return")
    }

    private func chooser(of window: MainWindow) throws -> VariantChooser {
        let shown = runMainLoop(timeout: .seconds(15), until: {
            window.variantChooser?.isShown == true && window.variantChooser.map { RealInput.focusIsIn($0) } == true
        })
        if !shown {
            let chooser = window.variantChooser.map { "shown \($0.isShown)" } ?? "none"
            let requests = server.requests.map(\.path)
            Issue.record("no chooser with the focus (chooser \(chooser), state \(String(describing: window.store?.state)), requests \(requests)): \(RealInput.describeScreen("hls-variant-chooser-missing"))")
        }
        return try #require(window.variantChooser)
    }

    private var segmentRequests: [RecordedRequest] { server.requests.filter { $0.path.hasSuffix(".ts") } }

    @Test func theVariantChosenIsTheOneSaved() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let url = server.url("/master.m3u8")
        try enter(url, in: window)
        let chooser = try chooser(of: window)
        #expect(chooser.choices.map { String(cString: gtk_check_button_get_label($0.as(GtkCheckButton.self))) }
                == ["720p · 2.5 Mbit/s", "360p · 800 kbit/s"])
        #expect(chooser.chosen?.height == 720, "the best is chosen to begin with")
        #expect(segmentRequests.isEmpty && server.requests(to: "/v720/index.m3u8").isEmpty, "nothing before a choice")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "hls-variant-chooser") != nil }))

        try RealInput.click(chooser.choices[1])
        let point = try RealInput.screenPoint(chooser.choices[1], at: nil)
        #expect(runMainLoop(timeout: .seconds(5), until: { chooser.chosen?.height == 360 }),
                "the click at \(point) missed: \(RealInput.describeScreen("hls-variant-click"))")
        try RealInput.click(try #require(chooser.button(VariantChooser.download)))
        #expect(runMainLoop(timeout: .seconds(60), until: { window.store?.state.isCompleted == true }),
                "the chosen variant did not download: \(String(describing: window.store?.state))")
        #expect(window.variantChooser == nil)
        let path = try #require(window.store?.state.completedPath)
        let media = try DiscoveredMedia.probe(path)
        #expect(media.height == 360)
        #expect(abs(media.duration - clip.seconds) < 0.25)
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/v720/") })
        // The master was read once, for the choice; the variant's playlist came straight after.
        #expect(server.requests(to: "/master.m3u8").count == 1)
    }

    @Test func escapeStartsNothingAndEnterTakesTheBest() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let url = server.url("/master.m3u8")
        try enter(url, in: window)
        _ = try chooser(of: window)
        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.variantChooser == nil }), "Escape did not close the chooser")
        runMainLoop(for: .seconds(0.3)) // a download would have asked for its playlist by now
        #expect(segmentRequests.isEmpty && server.requests(to: "/v720/index.m3u8").isEmpty)
        #expect(window.store?.state == .idle)
        let presentations = (try? FileManager.default.contentsOfDirectory(atPath: cache.path + "/hls")) ?? []
        #expect(presentations.isEmpty, "a cancelled choice kept \(presentations)")

        // Asked again; Enter takes the best.
        try RealInput.key("ctrl+l")
        try RealInput.key("Return")
        let again = try chooser(of: window)
        try RealInput.key("Return")
        #expect(runMainLoop(timeout: .seconds(60), until: { window.store?.state.isCompleted == true }),
                "Enter did not download: \(String(describing: window.store?.state)) \(again.isShown)")
        let path = try #require(window.store?.state.completedPath)
        #expect(try DiscoveredMedia.probe(path).height == 720)
    }
}

extension RealInput {
    /// Whether the keyboard focus is in the chooser's window.
    static func focusIsIn(_ chooser: VariantChooser) -> Bool {
        gtk_window_is_active(chooser.window.as(GtkWindow.self)) != 0
    }
}

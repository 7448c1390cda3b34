import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// Text from outside (a video's name from a server, a page or a file) shows as the text it is,
/// never read as Pango markup: in the library's rows and in the undo toast after a deletion,
/// whose title libadwaita 1.2 always parses as markup. Read back from the widgets on screen
/// (`gtk_label_get_text`: what the label shows once markup is parsed). Screenshot:
/// `artifacts/ui/outside-text-toast.png`.
@Suite(.serialized) @MainActor
struct OutsideTextTests {
    let cache: TemporaryDirectory

    /// Markup that does not parse (a bare `&`, tags): misread, the text vanishes or is cut.
    static let broken = #"Tom & Jerry <b>1</b> <span size="99999">x</span>.webm"#
    /// Markup that parses: misread, it shows as another name (`Tom & Jerry <1>` and a
    /// right-to-left override that names lose when they are made, back through an entity).
    static let valid = "Tom &amp; Jerry &lt;1&gt; &#8238;4pm.webm"

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-outside-text")
    }

    static func url(_ index: Int) -> String { "http://127.0.0.1:1/outside/\(index).webm" }

    /// Finished videos named `names`, the last the newest, as downloads leave them: the file,
    /// and the record beside it with the name a server gave.
    func fillLibrary(_ names: [String]) throws {
        let clip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 1, width: 160, height: 90, audio: false))))
        let videos = cache.path + "/videos"
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        let formatter = ISO8601DateFormatter()
        for (index, name) in names.enumerated() {
            let path = "\(videos)/\(index).webm"
            try Data(clip).write(to: URL(fileURLWithPath: path))
            let when = formatter.string(from: Date(timeIntervalSince1970: 1_750_000_000 + Double(index) * 60))
            let record: [String: Any] = ["url": Self.url(index), "displayName": name, "total": clip.count,
                                         "durableBytes": clip.count, "file": path, "created": when, "completed": when]
            let key = sha256Hex(of: Array(Self.url(index).utf8))
            try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: "\(videos)/\(key).json"))
        }
    }

    @Test func aNameWithMarkupShowsAsItsTextInTheRowAndTheUndoToast() throws {
        try fillLibrary([Self.valid, Self.broken])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let library = try #require(window.library)
        let view = library.view
        #expect(runMainLoop(timeout: .seconds(20), until: { view.urls.count == 2 && view.boundRowCount == 2 }))
        for (index, name) in [Self.valid, Self.broken].enumerated() {
            let row = try #require(view.row(url: Self.url(index)))
            #expect(row.shownTitle == name, "the row shows “\(row.shownTitle)”")
        }

        // Deleting one: the toast names it exactly, the other row still shows below it.
        view.choose(url: Self.url(1))
        window.activate(.delete)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.isUndoVisible && view.row(url: Self.url(1)) == nil }))
        #expect(runMainLoop(timeout: .seconds(5), until: { view.undoMessage == "“\(Self.broken)” deleted" }),
                "the toast says “\(view.undoMessage ?? "nothing")”")
        runMainLoop(for: .seconds(0.5)) // the toast slides in
        GtkHarness.screenshot(window.widget, "outside-text-toast")

        // Undone, then the other one: a name that is valid markup shows as typed too.
        window.activate(.undo)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.row(url: Self.url(1)) != nil && !view.isUndoVisible }))
        view.choose(url: Self.url(0))
        window.activate(.delete)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.undoMessage == "“\(Self.valid)” deleted" }),
                "the toast says “\(view.undoMessage ?? "nothing")”")
        window.activate(.undo)
        #expect(runMainLoop(timeout: .seconds(5), until: { view.urls.count == 2 && !view.isUndoVisible }))
    }
}

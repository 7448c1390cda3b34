import CAdwaita
import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A playlist only yt-dlp reads (an RSS feed of player pages), pasted in the window: the
/// chooser lists its entries by title, flat (no entry is read before a choice), and each entry
/// chosen becomes a download of the queue that yt-dlp reads when its turn comes.
@Suite(.serialized) @MainActor
struct SitePlaylistChoiceTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    static let bodies = (1...2).map { TestData.bytes(count: 150_000, seed: UInt64(380 + $0)) }

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-site-playlist")
        var items = ""
        for index in 1...2 {
            server.serve("/watch/\(index).html", body: Array("""
                <html><head><title>Player</title></head><body><div id="p"></div>
                <script>jwplayer("p").setup({"file": "/media/\(index)", "title": "Knot \(index)", "type": "mp4"});</script>
                </body></html>
                """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
            server.serve("/media/\(index)", body: Self.bodies[index - 1], etag: "\"\(index)\"")
            items += "<item><title>Knot \(index)</title><link>\(server.url("/watch/\(index).html"))</link><guid>\(index)</guid></item>"
        }
        server.serve("/feed.xml", body: Array("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>Sea School</title><link>\(server.url("/"))</link>\(items)</channel></rss>
            """.utf8), headers: [HTTPHeader("Content-Type", "application/rss+xml")])
    }

    @Test func aPlaylistsEntriesAreChosenAndEachIsSavedWhenItsTurnComes() throws {
        let site = try SiteSupportFixture.shared.get()
        // The window finds site support where a person's is: the run's managed copy.
        let before = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        setenv("XDG_DATA_HOME", site.dataHome, 1)
        defer { if let before { setenv("XDG_DATA_HOME", before, 1) } else { unsetenv("XDG_DATA_HOME") } }
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let feed = server.url("/feed.xml")
        try RealInput.enter(feed, in: window)
        #expect(runMainLoop(timeout: .seconds(60), until: { window.pageVideoChooser?.isShown == true }),
                "state: \(String(describing: window.store?.state))")
        let chooser = try #require(window.pageVideoChooser)
        let titles = chooser.rows.map { String(cString: adw_preferences_row_get_title($0.as(AdwPreferencesRow.self))) }
        #expect(titles == ["Knot 1", "Knot 2"])
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/watch/") && !$0.path.hasPrefix("/media/") }, "listed flat")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(chooser.window, "site-playlist-chooser") != nil }))
        try RealInput.key("Return")
        let entries = [1, 2].map { WebAddress.pageVideo($0, on: feed) }
        #expect(runMainLoop(timeout: .seconds(90), until: {
            entries.allSatisfy { window.store?.entries[$0]?.state.isCompleted == true }
        }), "entries: \(String(describing: window.store?.entries))")
        for (index, entry) in entries.enumerated() {
            let path = try #require(window.store?.entries[entry]?.state.completedPath)
            #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.bodies[index]))
        }
    }
}

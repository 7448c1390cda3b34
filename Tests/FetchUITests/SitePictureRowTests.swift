import CGtk
import FetchCore
import Foundation
import Testing
import TestSupport
@testable import FetchUI

/// A page only yt-dlp reads, pasted in the window: its library row shows yt-dlp's duration and
/// the site's picture (a red poster), though the file itself has no frame to show and no length
/// to probe (its bytes are no media GStreamer can read). Screenshot:
/// `artifacts/ui/site-picture-row.png`.
@Suite(.serialized) @MainActor
struct SitePictureRowTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-ui-site-picture")
    }

    @Test func theRowShowsTheSitesPictureAndDuration() throws {
        let site = try SiteSupportFixture.shared.get()
        let before = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        setenv("XDG_DATA_HOME", site.dataHome, 1)
        defer { if let before { setenv("XDG_DATA_HOME", before, 1) } else { unsetenv("XDG_DATA_HOME") } }
        server.serve("/media/harbour", body: TestData.bytes(count: 200_000, seed: 44), etag: "\"h\"")
        server.serve("/poster.jpg", body: Array(try Data(contentsOf: URL(fileURLWithPath: Clips.jpeg(color: "red")))))
        server.serve("/watch/harbour.html", body: Array("""
            <html><head><title>Player</title></head><body><div id="p"></div>
            <script>jwplayer("p").setup({"file": "/media/harbour", "title": "Harbour at dawn", "type": "mp4",
              "image": "/poster.jpg", "duration": 125});</script>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let page = server.url("/watch/harbour.html")
        try RealInput.enter(page, in: window)
        #expect(runMainLoop(timeout: .seconds(60), until: { window.store?.state.isCompleted == true }),
                "state: \(String(describing: window.store?.state))")
        let library = try #require(window.library)
        #expect(runMainLoop(timeout: .seconds(20), until: { library.view.row(url: page)?.hasThumbnail == true }),
                "no picture on the row")
        let row = try #require(library.view.row(url: page))
        #expect(row.model?.detail.contains("2:05") == true, "yt-dlp's duration: \(row.model?.detail ?? "nothing")")
        let path = try #require(window.store?.state.completedPath)
        let texture = try #require(library.view.thumbnails.texture(for: path))
        let pixels = Pixels(texture: texture)
        let middle = try #require(pixels[Double(pixels.width) / 2, Double(pixels.height) / 2])
        #expect(middle.red > 0.8 && middle.green < 0.2 && middle.blue < 0.2, "the poster's red: \(middle)")
        #expect(pixels.width == LibraryThumbnails.width, "scaled as a frame is: \(pixels.width)")
        #expect(runMainLoop(timeout: .seconds(3), until: { GtkHarness.screenshot(row.row, "site-picture-row") != nil }))
    }
}

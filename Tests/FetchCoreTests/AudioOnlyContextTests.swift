@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The chooser's "Audio only" rides in a download's context: a page's video stopped half-way
/// keeps it with its partial, so the next run (after a quit too) saves the audio alone again.
struct AudioOnlyContextTests {
    @Test func aPageVideosPartialKeepsTheWish() throws {
        let harness = try DownloadHarness()
        let server = try FaultServer()
        server.serve("/course", body: Array("""
            <html><head><title>Knots</title></head><body>
            <video src="/m/one.webm" title="Reef knot"></video><video src="/m/two.webm" title="Bowline"></video>
            </body></html>
            """.utf8), headers: [HTTPHeader("Content-Type", "text/html")])
        let url = WebAddress.pageVideo(1, on: server.url("/course"))
        var context = RequestContext()
        context.audioOnly = true
        _ = try harness.leavePartial("/m/one.webm", on: server, body: TestData.bytes(count: 200_000, seed: 46), context: context,
                                     link: url)
        #expect(harness.cache.context(for: url)?.audioOnly == true, "kept with the partial")
        #expect(harness.partialRecord(url)?.durableBytes == 50_000)
    }
}

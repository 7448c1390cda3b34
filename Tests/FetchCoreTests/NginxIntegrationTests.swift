@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The engine against a real, unmodified nginx on 127.0.0.1.
struct NginxIntegrationTests {
    let site: TemporaryDirectory
    let harness: DownloadHarness
    /// Large enough that four connections, each with nginx's first burst, are still mid-file.
    static let body = TestData.bytes(count: 24_000_000, seed: 11)

    init() throws {
        site = try TemporaryDirectory(prefix: "fetchplay-site")
        try site.write(Self.body, to: "clip.webm")
        harness = try DownloadHarness()
    }

    @Test func plainDownloadThenCacheHit() throws {
        let nginx = try Nginx(serving: site.path)
        defer { nginx.stop() }
        let url = nginx.url("/clip.webm")
        let state = try harness.download(url)
        let path = try #require(state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))

        // A cache hit needs no server at all.
        nginx.stop()
        let again = try harness.task(url)
        again.start()
        #expect(again.wait() == .completed(path: path))
    }

    @Test func pauseAndContinueUseNginxRanges() throws {
        let nginx = try Nginx(serving: site.path, limitRate: 1_000_000)
        defer { nginx.stop() }
        let url = nginx.url("/clip.webm")
        let task = try harness.task(url)
        task.start()
        // nginx sends each request's first second unthrottled; wait for bytes past those bursts.
        #expect(waitUntil(timeout: .seconds(20)) { task.progress.bytesDone > 6_000_000 })
        task.pause()
        #expect(task.wait() == .paused)
        let record = try #require(harness.partialRecord(url))
        #expect(record.durableBytes > 0 && record.durableBytes < Int64(Self.body.count))
        #expect(record.etag != nil, "nginx sends a strong ETag that makes the partial resumable")
        #expect(harness.durableRangesMatch(url, Self.body))

        task.start()
        let state = task.wait()
        let path = try #require(state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
    }
}

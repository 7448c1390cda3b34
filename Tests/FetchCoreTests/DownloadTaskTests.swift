@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The engine against a real HTTP server on 127.0.0.1 that misbehaves on purpose. Each test
/// asserts the exact bytes on disk (SHA-256) and what the client sent.
struct DownloadTaskTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 300_000, seed: 7)
    static let etag = "\"v1\""

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    private func serve(_ path: String = "/v.webm", faults: [Fault] = [], faultyRequests: Int? = 1) -> String {
        server.serve(path, body: Self.body, etag: Self.etag, faults: faults, faultyRequests: faultyRequests)
        return server.url(path)
    }

    /// Leaves a partial of the first `bytes` bytes of `path`: one drop, then a failing retry.
    private func leavePartial(_ path: String = "/v.webm", bytes: Int) throws -> String {
        let url = serve(path, faults: [.dropAfter(bytes: bytes)])
        server.addFaults([.dropAfter(bytes: 0)], to: path, requests: 1)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 0
        let state = try harness.download(url, options: options)
        guard case .failed = state else { throw PartialNotLeft(state: state) }
        #expect(harness.partialRecord(url)?.durableBytes == Int64(bytes))
        return url
    }

    struct PartialNotLeft: Error { let state: DownloadState }

    private func expectCompleted(_ state: DownloadState, with body: [UInt8] = DownloadTaskTests.body) throws {
        let path = try #require(state.completedPath, "state was \(state)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        #expect(path.hasPrefix(harness.cache.root + "/videos/"))
    }

    @Test func plainDownloadIsExactAndAsksForNoCompression() throws {
        let url = serve()
        try expectCompleted(try harness.download(url))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 1)
        #expect(requests[0]["range"] == nil)
        #expect(requests[0]["accept-encoding"] == nil)
        #expect(harness.progressEvents.last == DownloadProgress(bytesDone: 300_000, total: 300_000))
        // Nothing is left of the partial but its lock.
        #expect(!FileManager.default.fileExists(atPath: harness.partialPath(url)))
    }

    @Test func droppedConnectionResumesWithRangeAndIfRange() throws {
        let url = serve(faults: [.dropAfter(bytes: 100_000)])
        try expectCompleted(try harness.download(url))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 2)
        #expect(requests[1]["range"] == "bytes=100000-")
        #expect(requests[1]["if-range"] == Self.etag)
    }

    @Test func stalledConnectionIsRetried() throws {
        let url = serve(faults: [.stallAfter(bytes: 50_000)])
        try expectCompleted(try harness.download(url))
        #expect(server.requests(to: "/v.webm").last?["range"] == "bytes=50000-")
    }

    @Test func everyDropThatBringsBytesResetsTheRetries() throws {
        let url = serve(faults: [.dropAfter(bytes: 60_000)], faultyRequests: nil)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 1
        try expectCompleted(try harness.download(url, options: options))
        let ranges = server.requests(to: "/v.webm").map { $0["range"] }
        #expect(ranges == [nil, "bytes=60000-", "bytes=120000-", "bytes=180000-", "bytes=240000-"])
    }

    @Test func retriesRunOutIntoAFailureThatKeepsThePartial() throws {
        // Stalls are the network's fault, so they are retried (a server that answers and then
        // ends at the same byte every time is not: see HostileServerTests).
        let url = serve(faults: [.dropAfter(bytes: 10_000)])
        server.addFaults([.stallAfter(bytes: 0)], to: "/v.webm", requests: nil)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 2
        let state = try harness.download(url, options: options)
        guard case .failed(.stalled) = state else { Issue.record("state was \(state)"); return }
        #expect(server.requests(to: "/v.webm").count == 1 + 2 + 1)
        let record = try #require(harness.partialRecord(url))
        #expect(record.durableBytes == 10_000)
        #expect(try sha256Hex(ofFile: harness.partialPath(url)) == sha256Hex(of: Array(Self.body[..<10_000])))
    }

    @Test func ignoredRangeStartsOverWithoutMixingBytes() throws {
        let url = serve(faults: [.dropAfter(bytes: 100_000)])
        server.addFaults([.ignoreRange], to: "/v.webm", requests: nil)
        try expectCompleted(try harness.download(url))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 2)
        #expect(requests[1]["range"] == "bytes=100000-")
    }

    @Test func changedContentIsDownloadedAnewAfterIfRange() throws {
        let newBody = TestData.bytes(count: 250_000, seed: 99)
        let url = serve(faults: [.dropAfter(bytes: 100_000), .changeContent(body: newBody, etag: "\"v2\"")])
        try expectCompleted(try harness.download(url), with: newBody)
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 2)
        #expect(requests[1]["if-range"] == Self.etag)
    }

    @Test(arguments: [Fault.wrongRangeStart(shift: -1000), .wrongRangeTotal(shift: 5)])
    func misalignedRangeIsNeverWritten(_ fault: Fault) throws {
        let url = serve(faults: [.dropAfter(bytes: 100_000)])
        server.addFaults([fault], to: "/v.webm", requests: 1)
        try expectCompleted(try harness.download(url))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 3)
        #expect(requests[1]["range"] == "bytes=100000-")
        #expect(requests[2]["range"] == nil, "after a wrong Content-Range the download starts over")
    }

    @Test func restartThatFailsEarlyKeepsTheOldPartial() throws {
        // A partial of 100 000 bytes; then the server ignores Range and drops after 20 000.
        let url = serve(faults: [.dropAfter(bytes: 100_000)])
        server.addFaults([.ignoreRange, .dropAfter(bytes: 20_000)], to: "/v.webm", requests: nil)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 1
        let state = try harness.download(url, options: options)
        guard case .failed = state else { Issue.record("state was \(state)"); return }
        let record = try #require(harness.partialRecord(url))
        #expect(record.durableBytes == 100_000)
        #expect(try sha256Hex(ofFile: harness.partialPath(url)) == sha256Hex(of: Array(Self.body[..<100_000])))
    }

    @Test func misalignedRangesAndEarlyDropsEndInsteadOfLooping() throws {
        let url = try leavePartial(bytes: 100_000)
        // From now on: every ranged answer is misaligned and every whole-file answer drops early.
        server.addFaults([.wrongRangeStart(shift: -1000), .dropAfter(bytes: 20_000)], to: "/v.webm", requests: nil)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 2
        let state = try harness.download(url, options: options)
        guard case .failed = state else { Issue.record("state was \(state)"); return }
        #expect(server.requests(to: "/v.webm").count < 20)
        #expect(harness.partialRecord(url)?.durableBytes == 100_000)
        #expect(try sha256Hex(ofFile: harness.partialPath(url)) == sha256Hex(of: Array(Self.body[..<100_000])))
    }

    @Test func restartThatDropsEarlyThenAnAlignedRangeNeverSwapsInTheShortRestart() throws {
        // A partial; then a whole-file answer that drops before passing it; then a proper 206.
        let url = try leavePartial(bytes: 100_000)
        server.addFaults([.ignoreRange, .dropAfter(bytes: 20_000)], to: "/v.webm", requests: 1)
        server.addFaults([.throttle(bytesPerSecond: 400_000)], to: "/v.webm", requests: nil)
        try expectCompleted(try harness.download(url))
        let ranges = server.requests(to: "/v.webm").map { $0["range"] }
        #expect(ranges.suffix(2) == ["bytes=100000-", "bytes=100000-"])
    }

    @Test func completePartialIsConfirmedBy416() throws {
        // A crash after the last byte but before the rename leaves a whole partial.
        let url = try leavePartial(bytes: 100_000)
        let key = Cache.key(for: url)
        try Data(Self.body).write(to: URL(fileURLWithPath: harness.partialPath(url)))
        var record = try #require(harness.partialRecord(url))
        record.durable = ByteRanges(prefix: Int64(Self.body.count))
        try harness.cache.saveRecord(record, at: harness.cache.partialPath(key, "json"))

        try expectCompleted(try harness.download(url))
        let last = try #require(server.requests(to: "/v.webm").last)
        #expect(last["range"] == "bytes=300000-")
    }

    @Test func chunkedBodyDownloadsWithUnknownTotal() throws {
        server.serve("/live", body: Self.body, faults: [.chunked])
        try expectCompleted(try harness.download(server.url("/live")))
        #expect(harness.progressEvents.dropLast().contains { $0.total == nil && $0.bytesDone > 0 })
    }

    @Test func chunkedBodyCannotResumeSoItStartsOver() throws {
        server.serve("/live", body: Self.body, faults: [.chunked, .dropAfter(bytes: 50_000)], faultyRequests: 1)
        server.addFaults([.chunked], to: "/live", requests: nil)
        try expectCompleted(try harness.download(server.url("/live")))
        #expect(server.requests(to: "/live").allSatisfy { $0["range"] == nil })
    }

    @Test(arguments: [404, 403, 500])
    func errorStatusLeavesThePartialUntouched(_ status: Int) throws {
        let url = try leavePartial(bytes: 100_000)
        let before = try sha256Hex(ofFile: harness.partialPath(url))

        server.addFaults([.status(status)], to: "/v.webm", requests: nil)
        let state = try harness.download(url)
        guard case .failed(.httpStatus(let code, _)) = state else { Issue.record("state was \(state)"); return }
        #expect(code == status)
        #expect(try sha256Hex(ofFile: harness.partialPath(url)) == before)
        #expect(harness.partialRecord(url)?.durableBytes == 100_000)
    }

    @Test func redirectIsFollowedAndTheFinalURLKept() throws {
        _ = serve()
        server.serve("/short", body: [], faults: [.redirect(status: 302, location: "/v.webm")], faultyRequests: nil)
        let state = try harness.download(server.url("/short"))
        try expectCompleted(state)
        #expect(harness.cache.entry(for: server.url("/short"))?.isComplete == true)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x.webm"])
    func redirectToAForbiddenSchemeIsRefused(_ location: String) throws {
        server.serve("/evil", body: [], faults: [.redirect(status: 302, location: location)], faultyRequests: nil)
        let state = try harness.download(server.url("/evil"))
        guard case .failed(.unsupportedScheme) = state else { Issue.record("state was \(state)"); return }
        #expect(harness.filesInCache().allSatisfy { !$0.hasPrefix("videos/") || $0 == "videos" })
    }

    @Test func hostileNamesNeverReachTheDisk() throws {
        server.serve("/..%2F..%2Fevil.webm", body: Self.body, etag: Self.etag,
                     faults: [.attachment(filename: "../../evil.webm")], faultyRequests: nil)
        let url = server.url("/..%2F..%2Fevil.webm")
        try expectCompleted(try harness.download(url))
        let entry = try #require(harness.cache.entry(for: url))
        #expect(entry.displayName == "evil.webm")
        #expect(entry.path == harness.cache.root + "/videos/evil.webm", "the safe name, in the videos folder")
        #expect(!FileManager.default.fileExists(atPath: harness.folder.path + "/evil.webm"))
    }

    @Test func cachedURLCompletesWithoutAnotherRequest() throws {
        let url = serve()
        try expectCompleted(try harness.download(url))
        let again = try harness.task(url)
        #expect(again.state.completedPath != nil)
        again.start()
        try expectCompleted(again.wait())
        #expect(server.requests(to: "/v.webm").count == 1)
    }

    @Test func finishedVideoRemovedSinceIsDownloadedAgain() throws {
        let url = serve()
        let task = try harness.task(url)
        task.start()
        let path = try #require(task.wait().completedPath)
        try FileManager.default.removeItem(atPath: path)
        task.start()
        try expectCompleted(task.wait())
        #expect(server.requests(to: "/v.webm").count == 2)
    }

    @Test func pauseStopsTheBytesAndContinueResumes() throws {
        let url = serve(faults: [.throttle(bytesPerSecond: 200_000)], faultyRequests: nil)
        let task = try harness.task(url)
        task.start()
        #expect(waitUntil(timeout: .seconds(10)) { task.progress.bytesDone > 20_000 })
        task.pause()
        #expect(task.wait() == .paused)
        let size = FileIO.size(of: harness.partialPath(url))
        let durable = try #require(harness.partialRecord(url)?.durableBytes)
        #expect(size == durable, "a paused partial is all durable")
        #expect(server.activeConnections == 0 || waitUntil(timeout: .seconds(2)) { server.activeConnections == 0 })
        #expect(FileIO.size(of: harness.partialPath(url)) == size, "no bytes arrive while paused")

        server.addFaults([], to: "/v.webm")
        server.serve("/v.webm", body: Self.body, etag: Self.etag)
        task.start()
        try expectCompleted(task.wait())
        #expect(server.requests(to: "/v.webm").last?["range"] == "bytes=\(durable)-")
    }

    @Test func secondWriterOnTheSameURLIsRefused() throws {
        let url = serve(faults: [.throttle(bytesPerSecond: 100_000)], faultyRequests: nil)
        let first = try harness.task(url)
        first.start()
        #expect(waitUntil(timeout: .seconds(10)) { first.progress.bytesDone > 0 })
        let second = try harness.task(url)
        second.start()
        #expect(second.wait() == .failed(.busy))
        first.cancel()
        #expect(first.wait() == .paused)
    }

    @Test func refusedPortFailsAtOnceWithoutRetrying() throws {
        let url = serve()
        server.stop()
        let started = ContinuousClock.now
        let state = try harness.download(url)
        #expect(state == .failed(.connectionRefused("127.0.0.1")))
        _ = started
    }
}

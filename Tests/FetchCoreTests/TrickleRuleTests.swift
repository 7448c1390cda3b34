@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The first bytes of a body wait for the sniffer until 512 came; a pause before that keeps
/// them, unjudged, and the next run asks only for the rest and judges with it.
struct TrickleRuleTests {
    let server: FaultServer
    let harness: DownloadHarness

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    /// A stall of 30 s, so only the pause ends the first request.
    static var options: DownloadOptions {
        var options = DownloadHarness.quickOptions
        options.stallSeconds = 30
        return options
    }

    /// Serves `body` with its first 300 bytes trickling and nothing after them on the first
    /// request, pauses once they are in the partial's file, and returns the paused record.
    private func pauseAfterTheFirst300Bytes(_ path: String, body: [UInt8], label: String) throws -> DownloadRecord? {
        server.serve(path, body: body, etag: "\"t\"", headers: [HTTPHeader("Content-Type", label)],
                     faults: [.trickle(bytes: 300, perSecond: 1000), .stallAfter(bytes: 300)], faultyRequests: 1)
        let url = server.url(path)
        let task = try harness.task(url, options: Self.options)
        task.start()
        let key = Cache.key(for: url)
        let arrived = waitUntil(timeout: .seconds(20)) {
            harness.cache.dataFiles(key: key).contains { FileIO.size(of: $0) == 300 }
        }
        #expect(arrived, "the first 300 bytes are written as they come")
        #expect(harness.partialRecord(url) == nil, "not counted before they are judged")
        task.pause()
        #expect(task.wait() == .paused)
        return harness.partialRecord(url)
    }

    @Test func firstBytesBeforeAPauseAreKeptAndTheRestIsAskedFor() throws {
        let body = NotAVideoTests.webm
        let record = try #require(try pauseAfterTheFirst300Bytes("/trickle.webm", body: body, label: "video/webm"))
        #expect(record.durable == ByteRanges(prefix: 300) && record.unjudged == true)
        #expect(harness.durableRangesMatch(server.url("/trickle.webm"), body))

        let path = try #require(try harness.download(server.url("/trickle.webm"), options: Self.options).completedPath)
        let requests = server.requests(to: "/trickle.webm")
        #expect(requests.count == 2)
        #expect(requests.last?["range"] == "bytes=300-")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        let key = Cache.key(for: server.url("/trickle.webm"))
        let finished = try #require(harness.cache.loadRecord(at: harness.cache.videoRecordPath(key), key: key))
        #expect(finished.unjudged == nil && finished.sniffedType == "video/webm", "judged on continue")
    }

    @Test func aPageKeptByAPauseIsStillRefusedOnContinue() throws {
        let page = NotAVideoTests.page
        let record = try #require(try pauseAfterTheFirst300Bytes("/trickle-page", body: page, label: "application/octet-stream"))
        #expect(record.durableBytes == 300 && record.unjudged == true)

        #expect(try harness.download(server.url("/trickle-page"), options: Self.options) == .failed(.needsSiteSupport))
        // The continue asks for the rest; the scanner then reads the page whole for its videos.
        #expect(server.requests(to: "/trickle-page").dropLast().last?["range"] == "bytes=300-")
        #expect(server.requests(to: "/trickle-page").last?["range"] == nil)
        #expect(harness.cache.entries().isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") } == ["partial", "videos"], "nothing of the page is kept")
    }

    /// A partial whose kept first bytes were the whole file (the pause came between its last
    /// byte and the body's end) is judged when it completes.
    @Test func keptBytesThatAreTheWholeFileAreJudgedWhenItCompletes() throws {
        let text = Array("hello, not a video\n".utf8)
        server.serve("/whole", body: text, etag: "\"w\"", headers: [HTTPHeader("Content-Type", "video/mp4")])
        let url = server.url("/whole")
        let key = Cache.key(for: url)
        var record = DownloadRecord(url: url, displayName: "whole.mp4")
        record.total = Int64(text.count)
        record.etag = "\"w\""
        record.dataFile = "\(key).1.part"
        record.durable = ByteRanges(prefix: Int64(text.count))
        record.unjudged = true
        FileManager.default.createFile(atPath: harness.cache.partialDirectory + "/\(key).1.part", contents: Data(text))
        try harness.cache.saveRecord(record, at: harness.cache.partialPath(key, "json"))

        #expect(try harness.download(url, options: Self.options) == .failed(.notAVideo(.text)))
        #expect(server.requests(to: "/whole").last?["range"] == "bytes=\(text.count)-")
        #expect(harness.cache.entries().isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") } == ["partial", "videos"])
    }
}

import CCurl
@testable import FetchCore
import Foundation
import ThreadKit
import Testing
import TestSupport

/// The curl easy handle's own memory: the header list it points at stays alive while it is
/// used, is replaced whole at each `aim`, and goes with the handle (run under
/// AddressSanitizer, a use after free or a leak there is a report).
@Suite(.serialized)
struct CurlEasyTests {
    let server: FaultServer

    init() throws {
        server = try FaultServer()
        server.serve("/v.webm", body: Array(repeating: 7, count: 1000), etag: "\"a\"")
    }

    /// A body nobody keeps (libcurl writes to stdout without a write function).
    private static func discardBodies(_ easy: CurlEasy) throws {
        try easy.set(CURLOPT_WRITEFUNCTION) { _, size, count, _ in size * count }
    }

    private static func lines(_ prefix: String, _ count: Int) -> [[UInt8]] {
        (0..<count).map { Array("X-\(prefix)-\($0): \($0)".utf8) }
    }

    @Test func everyLineOfALongHeaderListIsSentAndTheNextListReplacesIt() throws {
        let easy = try CurlEasy()
        try easy.applyEngineRules(options: DownloadOptions())
        try Self.discardBodies(easy)
        let url = server.url("/v.webm")
        try easy.aim(at: url, origin: url, options: DownloadOptions(), lines: Self.lines("First", 300))
        #expect(easy.perform() == CURLE_OK)
        try easy.aim(at: url, origin: url, options: DownloadOptions(), lines: Self.lines("Second", 200))
        #expect(easy.perform() == CURLE_OK)

        let requests = server.requests
        try #require(requests.count == 2)
        #expect((0..<300).allSatisfy { requests[0]["X-First-\($0)"] == "\($0)" })
        #expect((0..<200).allSatisfy { requests[1]["X-Second-\($0)"] == "\($0)" })
        #expect(requests[1]["X-First-0"] == nil, "the old list went out with the new one")
    }

    @Test func handlesWithHeaderListsAreMadeAndDroppedManyTimes() throws {
        for round in 0..<300 {
            let easy = try CurlEasy()
            try easy.applyEngineRules(options: DownloadOptions())
            let url = server.url("/v.webm?\(round)")
            try easy.aim(at: url, origin: url, options: DownloadOptions(), lines: Self.lines("A", 40))
            try easy.aim(at: url, origin: url, options: DownloadOptions(), lines: round % 2 == 0 ? [] : Self.lines("B", 40))
        }
        // One last handle still works after all that.
        let easy = try CurlEasy()
        try easy.applyEngineRules(options: DownloadOptions())
        try Self.discardBodies(easy)
        let url = server.url("/v.webm")
        try easy.aim(at: url, origin: url, options: DownloadOptions(), lines: Self.lines("Last", 3))
        #expect(easy.perform() == CURLE_OK)
        #expect(server.requests.last?["X-Last-2"] == "2")
    }

    @Test func transfersAreMadeAndDroppedManyTimes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try Cache(root: directory.path)
        let url = server.url("/v.webm")
        let partial = try PartialFile(cache: cache, url: url, displayName: "v.webm")
        var options = DownloadOptions()
        options.context.headers = [try HeaderField(line: "X-Token: abc")]
        for round in 0..<300 {
            let range: (first: Int64, last: Int64?)? = round % 2 == 0 ? nil : (Int64(round), Int64(round) + 10)
            _ = try Transfer(url: url, role: round % 3 == 0 ? .primary : .slice, range: range, end: nil, partial: partial,
                             options: options, limits: SpeedLimits([]), stop: StopSignal()) {}
        }
        #expect(server.requests.isEmpty, "a Transfer only made sends nothing")
    }
}

@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// The holes a hostile server found in the never-corrupt promise, one test each: the bytes on
/// disk (SHA-256), what the client sent, and that nothing outside the cache is touched.
struct HostileServerTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 300_000, seed: 11)
    static let newBody = TestData.bytes(count: 300_000, seed: 12)
    static let etag = "\"v1\""
    static let date = "Tue, 01 Jul 2025 10:00:00 GMT"

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    private func expectCompleted(_ state: DownloadState, with body: [UInt8] = HostileServerTests.body) throws {
        let path = try #require(state.completedPath, "state was \(state)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
    }

    private func expectFailure(_ state: DownloadState, mentioning words: String) {
        guard case .failed(let error) = state else {
            Issue.record("state was \(state)")
            return
        }
        #expect(error.message.contains(words), "\(error.message)")
        #expect(!harness.filesInCache().contains { $0.hasPrefix("videos/") && $0 != "videos" })
    }

    // MARK: 1. A 206 that carries another validator

    /// The server ignores If-Range: v2's bytes come as a 206 from v1's offset.
    @Test(arguments: [("\"v2\"", true), (nil, false)] as [(String?, Bool)])
    func rangeAnswerWithAnotherOrNoValidatorStartsOver(newETag: String?, changesBytes: Bool) throws {
        let next = changesBytes ? Self.newBody : Self.body
        server.serve("/v.webm", body: Self.body, etag: Self.etag,
                     faults: [.dropAfter(bytes: 90_000), .changeContent(body: next, etag: newETag)], faultyRequests: 1)
        server.addFaults([.ignoreIfRange], to: "/v.webm", requests: nil)
        try expectCompleted(try harness.download(server.url("/v.webm")), with: next)
        let requests = server.requests(to: "/v.webm")
        #expect(requests.map { $0["range"] } == [nil, "bytes=90000-", nil])
        #expect(requests[1]["if-range"] == Self.etag)
    }

    @Test func rangeAnswerWithAnotherLastModifiedStartsOver() throws {
        server.serve("/v.webm", body: Self.body, lastModified: Self.date,
                     faults: [.dropAfter(bytes: 90_000),
                              .changeContent(body: Self.newBody, etag: nil, lastModified: "Wed, 02 Jul 2025 10:00:00 GMT")],
                     faultyRequests: 1)
        server.addFaults([.ignoreIfRange], to: "/v.webm", requests: nil)
        try expectCompleted(try harness.download(server.url("/v.webm")), with: Self.newBody)
        #expect(server.requests(to: "/v.webm").map { $0["range"] } == [nil, "bytes=90000-", nil])
    }

    // MARK: 2. Two different Content-Length headers

    @Test func conflictingLengthsAreAnErrorAndIdenticalOnesAreFine() throws {
        server.serve("/two.webm", body: Self.body, etag: Self.etag,
                     faults: [.header(name: "Content-Length", value: "150000")], faultyRequests: nil)
        expectFailure(try harness.download(server.url("/two.webm")), mentioning: "Content-Length")
        #expect(server.requests(to: "/two.webm").count == 1, "a protocol violation is never retried")
        #expect(FileIO.size(of: harness.partialPath(server.url("/two.webm"))) ?? 0 == 0)

        server.serve("/same.webm", body: Self.body, etag: Self.etag,
                     faults: [.header(name: "Content-Length", value: "300000")], faultyRequests: nil)
        try expectCompleted(try harness.download(server.url("/same.webm")))
    }

    // MARK: 3. Symlinks in the cache

    /// A link planted where each of Fetchplay's files goes, pointing at a file outside the cache.
    @Test(arguments: ["partial/KEY.part", "partial/KEY.lock", "partial/KEY.json", "partial/KEY.new",
                      "videos/KEY.webm", "videos/KEY.json"])
    func plantedSymlinksAreNeverWrittenThrough(_ planted: String) throws {
        let url = server.url("/v.webm")
        server.serve("/v.webm", body: Self.body, etag: Self.etag)
        let victim = harness.folder.file("victim")
        let victimBytes = Array("precious\n".utf8)
        FileManager.default.createFile(atPath: victim, contents: Data(victimBytes))
        let link = harness.cache.root + "/" + planted.replacingOccurrences(of: "KEY", with: Cache.key(for: url))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let nowhere = harness.folder.file("created-outside")
        if planted.hasSuffix(".lock") {
            try FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: nowhere)
        }

        let path = try #require(try harness.download(url).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType == .typeRegular)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: victim))) == victimBytes)
        #expect(!FileManager.default.fileExists(atPath: nowhere))
    }

    @Test func aFinishedVideoThatIsALinkIsNotTheVideo() throws {
        let url = server.url("/v.webm")
        server.serve("/v.webm", body: Self.body, etag: Self.etag)
        try expectCompleted(try harness.download(url))
        let path = try #require(harness.cache.entry(for: url)?.path)
        let victim = harness.folder.file("victim")
        FileManager.default.createFile(atPath: victim, contents: Data(Self.body))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        let entry = try #require(harness.cache.entry(for: url))
        #expect(!entry.isComplete && entry.isMissing, "a link is not Fetchplay's video")
    }

    // MARK: 4 and 5. Validators: control characters, and bytes that are not UTF-8

    @Test func validatorWithACarriageReturnIsNeverSentBack() throws {
        server.serve("/v.webm", body: Self.body, etag: "\"a\rX-Evil: 1\"", lastModified: Self.date,
                     faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        try expectCompleted(try harness.download(server.url("/v.webm")))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 2)
        // The ETag is no validator; the good Last-Modified still is.
        #expect(requests[1]["if-range"] == Self.date)
        #expect(requests[1]["range"] == "bytes=100000-")
        #expect(requests.allSatisfy { $0["x-evil"] == nil && !$0.headers.contains { $0.bytes.contains(13) } })
    }

    @Test func validatorThatIsNotUTF8GoesBackByteForByte() throws {
        let latin1ETag: [UInt8] = [0x22, 0xE9, 0x74, 0xE9, 0x22]  // "été" in ISO 8859-1
        server.serve("/v.webm", body: Self.body, etagBytes: latin1ETag,
                     faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        try expectCompleted(try harness.download(server.url("/v.webm")))
        let requests = server.requests(to: "/v.webm")
        #expect(requests.count == 2, "the 206 is appended, not the whole file fetched again")
        #expect(requests[1].bytes(of: "if-range") == latin1ETag)
        #expect(requests[1]["range"] == "bytes=100000-")
    }

    // MARK: 6. A password in the link

    @Test func passwordIsUsedButNeverStoredNorSentElsewhere() throws {
        server.serve("/v.webm", body: Self.body, etag: Self.etag,
                     faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/v.webm", requests: 1)
        let url = "http://user:secret@127.0.0.1:\(server.port)/v.webm"
        var options = DownloadHarness.quickOptions
        options.maxRetries = 0
        guard case .failed = try harness.download(url, options: options) else {
            Issue.record("expected a partial")
            return
        }
        #expect(try cacheFilesMention("secret") == [])
        let partial = try #require(harness.cache.entries().first)
        #expect(partial.url == "http://user@127.0.0.1:\(server.port)/v.webm")

        try expectCompleted(try harness.download(url))
        #expect(try cacheFilesMention("secret") == [])
        let requests = server.requests(to: "/v.webm")
        #expect(requests.allSatisfy { $0["authorization"] == "Basic dXNlcjpzZWNyZXQ=" })

        // A redirect to another server never carries the credentials.
        let other = try FaultServer()
        other.serve("/elsewhere.webm", body: Self.body, etag: Self.etag)
        server.serve("/moved", body: [], faults: [.redirect(status: 302, location: other.url("/elsewhere.webm"))],
                     faultyRequests: nil)
        try expectCompleted(try harness.download("http://user:secret@127.0.0.1:\(server.port)/moved"))
        #expect(server.requests(to: "/moved").first?["authorization"] != nil)
        #expect(other.requests(to: "/elsewhere.webm").count == 1)
        #expect(other.requests(to: "/elsewhere.webm").allSatisfy { $0["authorization"] == nil })
    }

    /// Cache files whose bytes contain `word`.
    private func cacheFilesMention(_ word: String) throws -> [String] {
        try harness.filesInCache().filter { name in
            let path = harness.cache.root + "/" + name
            guard FileIO.size(of: path) != nil else { return false }
            return try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(word.utf8)) != nil
        }
    }

    // MARK: 7. A record under another URL's name

    @Test func recordUnderAnotherURLsNameIsAStray() throws {
        let urlA = server.url("/a.webm"), urlB = server.url("/b.webm")
        server.serve("/a.webm", body: Self.body, etag: Self.etag,
                     faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/a.webm", requests: 1)
        server.serve("/b.webm", body: Self.newBody, etag: Self.etag)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 0
        _ = try harness.download(urlA, options: options)
        let keyA = Cache.key(for: urlA), keyB = Cache.key(for: urlB)
        try FileManager.default.moveItem(atPath: harness.partialPath(urlA), toPath: harness.cache.partialPath(keyB, "part"))
        try FileManager.default.moveItem(atPath: harness.cache.partialPath(keyA, "json"),
                                         toPath: harness.cache.partialPath(keyB, "json"))
        let library = Library(cache: harness.cache)
        #expect(library.reload().isEmpty, "neither A nor B is listed from B's name")
        #expect(harness.cache.strayFiles(known: []).contains(harness.cache.partialPath(keyB, "json")))

        try expectCompleted(try harness.download(urlB), with: Self.newBody)
        #expect(server.requests(to: "/b.webm").map { $0["range"] } == [nil], "A's bytes are never continued as B's")
    }

    /// Found by the fuzzer (`scripts/fuzz`, DownloadRecord): a record whose total was negative
    /// trapped in `ByteRanges.covers`. A record with impossible numbers is unreadable, never a
    /// crash, and the link downloads again whole.
    @Test(arguments: [("total", -194_304), ("durableBytes", -5), ("total", 1000)])
    func recordWithImpossibleNumbersIsUnreadable(_ key: String, _ value: Int) throws {
        let url = server.url("/edited.webm")
        server.serve("/edited.webm", body: Self.body, etag: Self.etag, faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/edited.webm", requests: 1)
        var options = DownloadHarness.quickOptions
        options.maxRetries = 0
        _ = try harness.download(url, options: options)
        let path = harness.cache.partialPath(Cache.key(for: url), "json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        json[key] = value
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try DownloadRecord.decoded(from: Data(contentsOf: URL(fileURLWithPath: path))) }
        #expect(Library(cache: harness.cache).reload().isEmpty, "listed from an impossible record")
        try expectCompleted(try harness.download(url), with: Self.body)
    }

    // MARK: 8. A compressed body nobody asked for

    @Test func compressedBodyIsRefusedAndNothingKept() throws {
        server.serve("/v.webm", body: Self.body, etag: Self.etag,
                     faults: [.header(name: "Content-Encoding", value: "gzip")], faultyRequests: nil)
        let url = server.url("/v.webm")
        expectFailure(try harness.download(url), mentioning: "Content-Encoding: gzip")
        #expect(server.requests(to: "/v.webm").count == 1)
        #expect(server.requests(to: "/v.webm")[0]["accept-encoding"] == nil)
        #expect(FileIO.size(of: harness.partialPath(url)) ?? 0 == 0)
        #expect(harness.cache.entries().isEmpty)
    }

    // MARK: Errors no retry can mend fail at once

    enum Violation: String, CaseIterable, Sendable {
        case malformedChunk, absurdLength, megabyteOfHeaders

        var faults: [Fault] {
            switch self {
            case .malformedChunk: [.malformedChunk(afterBytes: 50_000)]
            case .absurdLength: [.announcedLength("1000000000000000000")]
            case .megabyteOfHeaders: [.header(name: "X-Padding", value: String(repeating: "a", count: 1 << 20))]
            }
        }

        /// Words the one sentence must hold.
        var words: String {
            switch self {
            case .malformedChunk: "chunked"
            case .absurdLength: "disk"
            case .megabyteOfHeaders: "header"
            }
        }
    }

    @Test(arguments: Violation.allCases)
    func protocolViolationsFailWithoutRetrying(_ violation: Violation) throws {
        server.serve("/v.webm", body: Self.body, etag: Self.etag, faults: violation.faults, faultyRequests: nil)
        expectFailure(try harness.download(server.url("/v.webm")), mentioning: violation.words)
        #expect(server.requests(to: "/v.webm").count == 1, "never retried")
    }

    @Test func bodyAlwaysCutShortAtTheSameByteEndsInAFailureThatKeepsThePartial() throws {
        server.serve("/v.webm", body: Self.body, etag: Self.etag, faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/v.webm", requests: nil)
        let url = server.url("/v.webm")
        expectFailure(try harness.download(url), mentioning: "byte 100000 of 300000")
        // The first cut is retried (it may be the network); the second at the same byte is not.
        #expect(server.requests(to: "/v.webm").count == 3)
        #expect(harness.partialRecord(url)?.durableBytes == 100_000)
    }
}

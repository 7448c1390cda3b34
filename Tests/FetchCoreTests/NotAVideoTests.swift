@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// A link that answers with a document stops at once, keeps nothing, and says what it is;
/// the bytes decide over a wrong `Content-Type`.
struct NotAVideoTests {
    let server: FaultServer
    let harness: DownloadHarness

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    static let page = Array("<!DOCTYPE html>\n<html><head><title>A video site</title></head><body>\(String(repeating: "<p>text</p>", count: 500))</body></html>\n".utf8)
    static let pdf = Array("%PDF-1.4\n%\u{E2}\u{E3}\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".utf8) + TestData.bytes(count: 5000, seed: 1)
    static let json = Array("{\"video\": {\"title\": \"not here\", \"items\": [1, 2, 3]}}\n".utf8)
    /// The start of a WebM file (EBML header, DocType "webm"), then noise.
    static let webm: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01,
                                0x42, 0xF2, 0x81, 0x04, 0x42, 0xF3, 0x81, 0x08, 0x42, 0x82, 0x84]
        + Array("webm".utf8) + [0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02] + TestData.bytes(count: 50_000, seed: 2)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let body: [UInt8]
        let contentType: String?
        let kind: DocumentKind
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "web page", body: page, contentType: "text/html; charset=utf-8", kind: .webPage),
        Case(name: "web page served as a binary", body: page, contentType: "application/octet-stream", kind: .webPage),
        Case(name: "PDF", body: pdf, contentType: "application/pdf", kind: .pdf),
        Case(name: "JSON", body: json, contentType: "application/json", kind: .json),
    ])
    func documentStopsAtOnceAndKeepsNothing(_ document: Case) throws {
        server.serve("/watch", body: document.body, etag: "\"d\"",
                     headers: document.contentType.map { [HTTPHeader("Content-Type", $0)] } ?? [])
        let state = try harness.download(server.url("/watch"))
        // A page with no video the scanner can see, and no site support to ask: how to get it.
        #expect(state == .failed(document.kind == .webPage ? .needsSiteSupport : .notAVideo(document.kind)))
        // A web page is read once more, by the scanner, for the videos it offers (none here).
        #expect(server.requests(to: "/watch").count == (document.kind == .webPage ? 2 : 1))
        #expect(harness.cache.entries().isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") }
                == ["partial", "videos"], "nothing of the document is kept")
    }

    @Test func videoServedAsTextIsStillAVideo() throws {
        server.serve("/clip", body: Self.webm, etag: "\"w\"", headers: [HTTPHeader("Content-Type", "text/plain")])
        let path = try #require(try harness.download(server.url("/clip")).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.webm))
    }

    @Test(arguments: [nil, "text/plain", "text/plain; charset=utf-8", "application/octet-stream", "text/html", "application/json"])
    func binaryBytesAreKeptWhateverTheirLabel(_ label: String?) throws {
        // No magic GLib knows: only that they are not text.
        let body = TestData.bytes(count: 40_000, seed: 5)
        server.serve("/blob", body: body, etag: "\"b\"", headers: label.map { [HTTPHeader("Content-Type", $0)] } ?? [])
        let path = try #require(try harness.download(server.url("/blob")).completedPath, "label \(label ?? "none")")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
    }

    @Test func slowStartIsJudgedOnEnoughBytes() throws {
        // One byte at a time for the first 40: judged on 6 of them, this was "a text file".
        server.serve("/slow", body: Self.webm, etag: "\"s\"", headers: [HTTPHeader("Content-Type", "text/plain")],
                     faults: [.trickle(bytes: 40, perSecond: 100)], faultyRequests: nil)
        let path = try #require(try harness.download(server.url("/slow")).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.webm))
        #expect(server.requests(to: "/slow").count == 1)
    }

    @Test func slowPageIsStillAPageAndKeepsNothing() throws {
        // The first byte alone ("<") says nothing; 512 of them say "a web page".
        server.serve("/slowpage", body: Self.page, etag: "\"p\"", headers: [HTTPHeader("Content-Type", "application/octet-stream")],
                     faults: [.trickle(bytes: 30, perSecond: 100)], faultyRequests: nil)
        #expect(try harness.download(server.url("/slowpage")) == .failed(.needsSiteSupport))
        #expect(harness.cache.entries().isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") } == ["partial", "videos"])
    }

    @Test func shortBodiesAreJudgedWhole() throws {
        let tiny = TestData.bytes(count: 100, seed: 6)
        server.serve("/tiny", body: tiny, etag: "\"t\"", headers: [HTTPHeader("Content-Type", "text/plain")])
        let path = try #require(try harness.download(server.url("/tiny")).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: tiny))
        server.serve("/hello", body: Array("hello\n".utf8), etag: "\"h\"", headers: [HTTPHeader("Content-Type", "video/mp4")])
        #expect(try harness.download(server.url("/hello")) == .failed(.notAVideo(.text)))
        #expect(harness.cache.entries().count == 1, "only the tiny binary file")
    }

    @Test func binaryBytesThatStartLikeTextAreNoDocument() throws {
        // GLib guesses anything that starts with "%" as MATLAB source, a text type.
        let body = Array("%".utf8) + TestData.bytes(count: 50_000, seed: 3)
        server.serve("/data", body: body, etag: "\"b\"", headers: [HTTPHeader("Content-Type", "application/octet-stream")])
        let path = try #require(try harness.download(server.url("/data")).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        // Real text that starts the same way is still refused.
        let text = Array("% A MATLAB script, not a video\nx = 1;\n".utf8)
        server.serve("/script", body: text, etag: "\"t\"", headers: [HTTPHeader("Content-Type", "application/octet-stream")])
        #expect(try harness.download(server.url("/script")) == .failed(.notAVideo(.text)))
    }

    @Test func failureWithBytesKeptIsRememberedAndCleared() throws {
        let body = TestData.bytes(count: 200_000, seed: 3)
        server.serve("/v.webm", body: body, etag: "\"f\"", faults: [.dropAfter(bytes: 50_000)], faultyRequests: 1)
        server.addFaults([.status(500)], to: "/v.webm", requests: 1)
        let url = server.url("/v.webm")
        guard case .failed(let error) = try harness.download(url) else {
            Issue.record("expected a failure")
            return
        }
        let failed = try #require(harness.cache.entries().first)
        #expect(failed.failure == error.message)
        #expect(failed.bytesDone == 50_000)
        // Nothing kept: no row, no failure to remember.
        server.serve("/gone.webm", body: body, faults: [.status(404)], faultyRequests: nil)
        _ = try harness.download(server.url("/gone.webm"))
        #expect(harness.cache.entries().count == 1)

        _ = try #require(try harness.download(url).completedPath)
        #expect(harness.cache.entries().first?.failure == nil)
    }

    @Test func positionIsKeptInTheVideosRecord() throws {
        server.serve("/v.webm", body: TestData.bytes(count: 10_000, seed: 4), etag: "\"p\"")
        let url = server.url("/v.webm")
        _ = try #require(try harness.download(url).completedPath)
        let library = Library(cache: harness.cache)
        try library.setPosition(42.5, url: url)
        #expect(Library(cache: harness.cache).reload().first?.position == 42.5, "kept on disk")
        try library.setPosition(nil, url: url)
        #expect(Library(cache: harness.cache).reload().first?.position == nil)
    }
}

/// The sniffer's table: the bytes decide; the label only names which text it is.
struct MediaSnifferTests {
    static let mpd = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- Created with ffmpeg -->\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\"><Period/></MPD>\n"

    @Test(arguments: [
        ("\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:4\n", "text/plain", DocumentKind?.some(.playlist)),
        ("#EXTM3U\n#EXTINF:4,\na.ts\n", "application/octet-stream", .playlist),
        ("#EXTM3U\n", nil, .playlist),
        (mpd, "text/plain", .manifest),
        (mpd, "application/octet-stream", .manifest),
        ("<dash:MPD xmlns:dash=\"urn:mpeg:dash:schema:mpd:2011\"/>", "application/dash+xml", .manifest),
        ("<?xml version=\"1.0\"?><feed><title>news</title></feed>", "application/octet-stream", .xml),
        ("<!DOCTYPE html><html><body>hi</body></html>", nil, .webPage),
        ("{\"a\": [1, 2, 3]}", "application/json", .json),
        ("just some words\n", "application/octet-stream", .text),
        ("just some words\n", "text/html", .webPage),
        ("%PDF-1.4\n%\u{E2}\u{E3}\n1 0 obj\n", "application/octet-stream", .pdf),
    ] as [(String, String?, DocumentKind?)])
    func documentsAreKnownByTheirBytes(_ text: String, _ label: String?, _ kind: DocumentKind?) {
        let judged = Array(text.utf8).withUnsafeBytes { MediaSniffer.document(contentType: label, firstBytes: $0) }
        #expect(judged == kind, "\(label ?? "no label"): \(text.prefix(30))")
    }

    @Test(arguments: [nil, "text/plain", "application/vnd.apple.mpegurl", "application/dash+xml", "text/html"])
    func mediaIsNeverADocument(_ label: String?) {
        #expect(NotAVideoTests.webm.withUnsafeBytes { MediaSniffer.document(contentType: label, firstBytes: $0) } == nil)
        let noise = TestData.bytes(count: 600, seed: 9)
        #expect(noise.withUnsafeBytes { MediaSniffer.document(contentType: label, firstBytes: $0) } == nil)
    }
}

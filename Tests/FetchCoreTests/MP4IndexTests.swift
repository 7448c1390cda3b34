@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// An MP4 whose index (`moov`) is after its media (`mdat`) gets its tail fetched first: read
/// from the first boxes, before any slice of the middle.
struct MP4IndexTests {
    /// A box of `type` holding `payload` bytes; `large` writes the 64-bit size form.
    static func box(_ type: String, payload: Int, large: Bool = false) -> [UInt8] {
        func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] { (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let header = large ? 16 : 8
        let size = UInt64(header + payload)
        var bytes = large ? bigEndian(1, bytes: 4) : bigEndian(size, bytes: 4)
        bytes += Array(type.utf8)
        if large { bytes += bigEndian(size, bytes: 8) }
        return bytes + [UInt8](repeating: 0x5A, count: payload)
    }

    /// ftyp, free, an mdat of `media` bytes, then a moov of `index` bytes (mp4mux faststart=false).
    static func indexLast(media: Int, index: Int, large: Bool = false) -> [UInt8] {
        box("ftyp", payload: 24) + box("free", payload: 0) + box("mdat", payload: media, large: large) + box("moov", payload: index)
    }

    @Test func anIndexAfterTheMediaIsFound() {
        let file = Self.indexLast(media: 100_000, index: 4000)
        let moov = Int64(file.count - 4008)
        #expect(MP4Index.tailIndexOffset(head: Array(file.prefix(4096)), total: Int64(file.count)) == moov)
        // The head needs only to reach the mdat header.
        #expect(MP4Index.tailIndexOffset(head: Array(file.prefix(56)), total: Int64(file.count)) == moov)
        #expect(MP4Index.tailIndexOffset(head: Array(file.prefix(40)), total: Int64(file.count)) == nil)
        let large = Self.indexLast(media: 100_000, index: 4000, large: true)
        #expect(MP4Index.tailIndexOffset(head: Array(large.prefix(4096)), total: Int64(large.count)) == Int64(large.count - 4008))
    }

    @Test func anIndexFirstOrAnotherFormatFetchesNothingEarly() {
        let fastStart = Self.box("ftyp", payload: 24) + Self.box("moov", payload: 4000) + Self.box("mdat", payload: 100_000)
        #expect(MP4Index.tailIndexOffset(head: Array(fastStart.prefix(4096)), total: Int64(fastStart.count)) == nil)
        let webm: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 100)
        #expect(MP4Index.tailIndexOffset(head: webm, total: 1 << 20) == nil)
        // An mdat to the end of the file (size 0), or sizes past the end: no index to fetch.
        let toTheEnd = Self.box("ftyp", payload: 24) + [0, 0, 0, 0] + Array("mdat".utf8) + [UInt8](repeating: 1, count: 1000)
        #expect(MP4Index.tailIndexOffset(head: toTheEnd, total: Int64(toTheEnd.count)) == nil)
        let file = Self.indexLast(media: 100_000, index: 4000)
        #expect(MP4Index.tailIndexOffset(head: Array(file.prefix(4096)), total: 50_000) == nil)
    }

    /// With no player reading, the download itself asks for the index near the end right after
    /// the file's first bytes, before any request for the ranges between.
    @Test func theDownloadFetchesTheTailBeforeTheMiddle() throws {
        let server = try FaultServer()
        let harness = try DownloadHarness()
        let body = Self.indexLast(media: 12 << 20, index: 300_000)
        server.serve("/film.mp4", body: body, etag: "\"m\"", faults: [.throttle(bytesPerSecond: 4 << 20)],
                     faultyRequests: nil)
        let state = try harness.download(server.url("/film.mp4"))
        #expect(state.completedPath != nil, "\(state)")
        if let path = state.completedPath { #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body)) }
        let starts = server.requests(to: "/film.mp4").compactMap { request -> Int64? in
            guard let range = request["range"], range.hasPrefix("bytes=") else { return nil }
            return Int64(range.dropFirst(6).prefix { $0 != "-" })
        }
        let moov = Int64(body.count - 300_008)
        #expect(starts.first.map { $0 <= moov && $0 > moov - (64 << 10) } == true, "range requests from \(starts)")
        #expect(starts.count > 1, "the middle came in slices too: \(starts)")
    }
}

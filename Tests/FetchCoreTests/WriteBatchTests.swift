@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// The pieces libcurl hands over (16 KiB each) reach the file together, once per socket read,
/// and every byte lands where it belongs.
struct WriteBatchTests {
    let folder: TemporaryDirectory
    let cache: Cache
    let partial: PartialFile

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-batch")
        cache = try Cache(root: folder.path + "/cache")
        partial = try PartialFile(cache: cache, url: "http://127.0.0.1:1/v.webm", displayName: "v.webm")
        try partial.openFresh(partial.record)
    }

    private var dataFile: String { cache.dataFiles(key: Cache.key(for: "http://127.0.0.1:1/v.webm")).first ?? "" }

    private func size() -> Int64 {
        var info = stat()
        return stat(dataFile, &info) == 0 ? Int64(info.st_size) : -1
    }

    private func contents() -> [UInt8] { Array(FileManager.default.contents(atPath: dataFile) ?? Data()) }

    @Test func piecesThatFollowOnAreHeldUntilTheFlush() throws {
        let body = TestData.bytes(count: 48 * 1024, seed: 5)
        let batch = WriteBatch(partial: partial, capacity: 256 * 1024)
        body.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: body.count, by: 16 * 1024) {
                #expect(batch.take(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 16 * 1024)]), at: Int64(start)))
            }
        }
        #expect(batch.held == body.count)
        #expect(size() == 0, "nothing is written before the flush")
        try batch.flush()
        #expect(batch.held == 0)
        #expect(sha256Hex(of: contents()) == sha256Hex(of: body))
        try batch.flush()
        #expect(sha256Hex(of: contents()) == sha256Hex(of: body), "a second flush writes nothing again")
    }

    @Test func aPieceElsewhereOrOneThatDoesNotFitIsNotTaken() throws {
        let body = TestData.bytes(count: 100, seed: 6)
        let batch = WriteBatch(partial: partial, capacity: 64)
        body.withUnsafeBytes { bytes in
            func take(_ range: Range<Int>, at offset: Int64) -> Bool { batch.take(UnsafeRawBufferPointer(rebasing: bytes[range]), at: offset) }
            #expect(take(0..<40, at: 0))
            #expect(!take(50..<60, at: 50), "not following on: a gap at 40..<50")
            #expect(take(40..<60, at: 40), "following on and fitting: 40 + 20 of 64")
            #expect(!take(60..<70, at: 60), "following on but not fitting: 60 + 10")
            #expect(batch.held == 60)
        }
        try batch.flush()
        body.withUnsafeBytes { bytes in
            #expect(!batch.take(UnsafeRawBufferPointer(rebasing: bytes[0..<64]), at: 60), "as large as the buffer: never held")
            #expect(batch.take(UnsafeRawBufferPointer(rebasing: bytes[60..<100]), at: 60), "an empty batch takes a piece anywhere")
        }
        try batch.flush()
        #expect(contents() == body)
    }

    /// A download at full speed writes its file in a few large writes, not one per 16 KiB piece
    /// (counted by the kernel for this process: `syscw` in `/proc/self/io`; the suites run one
    /// at a time, `--no-parallel` in `scripts/test`, so no other test writes meanwhile).
    @Test func aFastDownloadWritesOncePerRead() throws {
        let site = try TemporaryDirectory(prefix: "fetchplay-site")
        defer { site.remove() }
        let body = TestData.bytes(count: 16 << 20, seed: 7)
        try site.write(body, to: "clip.webm")
        let nginx = try Nginx(serving: site.path)
        defer { nginx.stop() }
        let harness = try DownloadHarness()
        var options = DownloadHarness.quickOptions
        options.connections = 1
        options.growConnections = false
        let before = try #require(Self.writeCalls())
        let state = try harness.download(nginx.url("/clip.webm"), options: options)
        let after = try #require(Self.writeCalls())
        let path = try #require(state.completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        // One write per 16 KiB piece would be 1,024; one per read is far fewer.
        let pieces = body.count / (16 * 1024)
        #expect(after - before < pieces / 2, "\(after - before) write calls for \(pieces) pieces")
    }

    /// Write system calls this process made so far.
    private static func writeCalls() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("syscw:") }
            .flatMap { Int($0.dropFirst("syscw:".count).trimmingCharacters(in: .whitespaces)) }
    }
}

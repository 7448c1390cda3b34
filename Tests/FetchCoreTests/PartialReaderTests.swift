@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Reading a video while it downloads: the bytes a player asks for come from the partial as soon
/// as they are written, a read ahead of the download moves a connection there, and with no
/// download running a hole says so instead of hanging.
struct PartialReaderTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 12 << 20, seed: 71)

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    /// A queue with one download of the body, throttled per connection.
    private func start(bytesPerSecond: Int = 1 << 20) throws -> (DownloadQueue, String, DownloadBoard) {
        server.serve("/v.webm", body: Self.body, etag: "\"r\"", faults: [.throttle(bytesPerSecond: bytesPerSecond)],
                     faultyRequests: nil)
        let queue = DownloadQueue(cache: harness.cache, maxRunning: 1, options: DownloadHarness.quickOptions)
        let url = try queue.add(server.url("/v.webm")).url
        return (queue, url, try #require(queue.board(for: url)))
    }

    /// Reads `count` bytes from `offset` with the reader, asking again while they are on their way.
    private func readFully(_ reader: PartialReader, at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while bytes.count < count, ContinuousClock.now < deadline {
            bytes += try reader.read(at: offset + Int64(bytes.count), count: count - bytes.count, timeout: 1)
        }
        return bytes
    }

    @Test func readsAcrossRangeBoundariesAsTheBytesArrive() throws {
        let (queue, url, board) = try start()
        defer { queue.pause(url) }
        let reader = PartialReader(board: board)
        // Across the first part's end and the second's start (four parts of 3 MiB).
        let offset: Int64 = 3 << 20 - 100_000
        let bytes = try readFully(reader, at: offset, count: 200_000)
        #expect(bytes == Array(Self.body[Int(offset)..<Int(offset) + 200_000]))
        #expect(reader.total == Int64(Self.body.count))
    }

    @Test func aReadAheadOfTheDownloadStartsAConnectionThere() throws {
        let (queue, url, board) = try start(bytesPerSecond: 256 << 10)
        defer { queue.pause(url) }
        let reader = PartialReader(board: board)
        #expect(waitUntil(timeout: .seconds(10)) { board.current.ranges.count > 0 })
        let offset: Int64 = 11 << 20 + 12_345  // two MiB into the last part: far from its connection
        let bytes = try readFully(reader, at: offset, count: 4096)
        #expect(bytes == Array(Self.body[Int(offset)..<Int(offset) + 4096]))
        let asked = server.requests(to: "/v.webm").compactMap { $0["range"] }
        #expect(asked.contains { $0.hasPrefix("bytes=\(offset & ~0xFFFF)-") }, "\(asked)")
    }

    @Test func aHoleWithNoDownloadRunningSaysSoAndTheEndIsEmpty() throws {
        let (queue, url, board) = try start(bytesPerSecond: 512 << 10)
        #expect(waitUntil(timeout: .seconds(10)) { board.current.ranges.count >= 1000 })
        queue.pause(url)
        #expect(waitUntil(timeout: .seconds(10)) { queue.entry(url)?.state == .paused })
        let reader = PartialReader(board: board)
        #expect(try reader.read(at: 0, count: 1000, timeout: 1) == Array(Self.body[0..<1000]))
        #expect(throws: PartialReader.ReadError.notDownloaded) {
            try reader.read(at: Int64(Self.body.count) - 10, count: 10, timeout: 1)
        }
        #expect(try reader.read(at: Int64(Self.body.count), count: 10, timeout: 1).isEmpty)
    }

    /// Closed and opened again (a new queue over the same cache, the server gone): the reader
    /// serves what the earlier run left on disk and says at once that the rest is not there.
    @Test func aPartialLeftByAnEarlierRunReadsOffline() throws {
        let (queue, url, board) = try start(bytesPerSecond: 512 << 10)
        #expect(waitUntil(timeout: .seconds(10)) { board.current.ranges.count >= 1 << 20 })
        queue.pause(url)
        #expect(waitUntil(timeout: .seconds(10)) { queue.entry(url)?.state == .paused })
        server.stop()
        let durable = try #require(harness.partialRecord(url)).durable

        let later = DownloadQueue(cache: harness.cache, maxRunning: 1, options: DownloadHarness.quickOptions)
        let offline = try later.add(url, start: false)
        #expect(offline.state == .idle)
        let reader = PartialReader(board: try #require(later.board(for: url)))
        // The queue reads the cache off the caller's thread; the board holds it once read.
        #expect(waitUntil(timeout: .seconds(5)) { reader.total == Int64(Self.body.count) })
        let first = try #require(durable.ranges.first)
        let tail = Int(first.upperBound) - 1000
        #expect(try reader.read(at: Int64(tail), count: 1000, timeout: 1) == Array(Self.body[tail..<tail + 1000]))
        let hole = try #require(durable.gaps(upTo: Int64(Self.body.count)).first)
        #expect(throws: PartialReader.ReadError.notDownloaded) {
            try reader.read(at: hole.lowerBound, count: 10, timeout: 1)
        }
        #expect(try reader.read(at: Int64(Self.body.count), count: 10, timeout: 1).isEmpty)
    }

    @Test func theFinishedVideoReadsTheSame() throws {
        let (queue, url, board) = try start(bytesPerSecond: 64 << 20)
        let reader = PartialReader(board: board)
        let head = try readFully(reader, at: 0, count: 1000)
        #expect(waitUntil(timeout: .seconds(30)) { queue.entry(url)?.state.completedPath != nil })
        #expect(head == Array(Self.body[0..<1000]))
        let tail = try readFully(reader, at: Int64(Self.body.count) - 1000, count: 1000)
        #expect(tail == Array(Self.body.suffix(1000)))
    }
}

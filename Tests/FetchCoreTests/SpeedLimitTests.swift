@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Speed limits hold across every connection of a download, and across downloads, and follow a
/// change at once. Rates are the server's own: body bytes it sent and when (`sentBytes`), over
/// windows that leave out the start and the end, where the sockets' buffers fill and drain
/// faster than anyone reads. The margin is generous; the bytes on disk must be exact.
@Suite(.serialized)
struct SpeedLimitTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 16 << 20, seed: 51)
    static let etag = "\"limited\""
    /// Bytes per second.
    static let limit: Int64 = 4 << 20
    /// What a limit may be exceeded by in a measured window (bursts, reads that cannot be cut).
    static let margin = 1.3
    /// The server's send buffer per connection: small, so that what it counts as sent is what
    /// the client took, give or take this.
    static let sendBuffer = 64 << 10

    init() throws {
        server = try FaultServer(sendBuffer: Self.sendBuffer)
        harness = try DownloadHarness()
    }

    private func expectExact(_ state: DownloadState, _ body: [UInt8] = SpeedLimitTests.body) throws {
        let path = try #require(state.completedPath, "state was \(state)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
    }

    private func mebibytes(_ rate: Double?) -> String {
        rate.map { String(format: "%.2f MiB/s", $0 / Double(1 << 20)) } ?? "none"
    }

    /// Connections that asked for a range with an end: the extra ones.
    private func slices(_ path: String) -> Int {
        server.requests(to: path).filter { $0["range"].map { !$0.hasSuffix("-") } ?? false }.count
    }

    @Test func oneDownloadsConnectionsShareItsLimit() throws {
        server.serve("/v.bin", body: Self.body, etag: Self.etag)
        // Four at once, growing none: the limit, not the server, holds the rate.
        var options = DownloadHarness.quickOptions
        options.connections = 4
        options.growConnections = false
        let task = try harness.task(server.url("/v.bin"), options: options)
        task.speedLimit.bytesPerSecond = Self.limit
        task.start()
        try expectExact(task.wait())
        #expect(slices("/v.bin") >= 3, "four connections")
        let rate = server.sentBytes.rate(fromByte: 3 << 20, toByte: 13 << 20)
        print("speed limit \(mebibytes(Double(Self.limit))): the server sent \(mebibytes(rate)) with four connections")
        let measured = try #require(rate)
        #expect(measured <= Double(Self.limit) * Self.margin, "\(mebibytes(measured))")
    }

    @Test func theGlobalLimitHoldsAcrossDownloads() throws {
        let body = TestData.bytes(count: 8 << 20, seed: 52), other = TestData.bytes(count: 8 << 20, seed: 53)
        server.serve("/a.bin", body: body, etag: Self.etag)
        server.serve("/b.bin", body: other, etag: "\"other\"")
        var options = DownloadHarness.quickOptions
        options.speedLimit = SpeedLimit(bytesPerSecond: Self.limit)
        let queue = DownloadQueue(cache: harness.cache, maxRunning: 2, options: options)
        let a = try queue.add(server.url("/a.bin")).url
        let b = try queue.add(server.url("/b.bin")).url
        let endA = try #require(queue.wait(for: a)), endB = try #require(queue.wait(for: b))
        try expectExact(endA.state, body)
        try expectExact(endB.state, other)
        // Both ran at once: the two share the host's four connections.
        #expect(slices("/a.bin") + slices("/b.bin") >= 2)
        let rate = server.sentBytes.rate(fromByte: 3 << 20, toByte: 13 << 20)
        print("global limit \(mebibytes(Double(Self.limit))): the server sent \(mebibytes(rate)) for two downloads")
        let measured = try #require(rate)
        #expect(measured <= Double(Self.limit) * Self.margin, "\(mebibytes(measured))")
    }

    @Test func aChangedLimitAppliesToTheRunningDownload() throws {
        server.serve("/v.bin", body: Self.body, etag: Self.etag)
        let task = try harness.task(server.url("/v.bin"))
        task.speedLimit.bytesPerSecond = 2 * Self.limit
        task.start()
        #expect(waitUntil(timeout: .seconds(20)) { (server.sentBytes.last?.total ?? 0) >= 5 << 20 })
        let lower = Self.limit / 4
        task.speedLimit.bytesPerSecond = lower
        let lowered = ContinuousClock.now
        #expect(waitUntil(timeout: .seconds(20)) { (server.sentBytes.last?.at ?? lowered) > lowered + .seconds(3) })
        task.speedLimit.bytesPerSecond = nil
        let raised = ContinuousClock.now
        try expectExact(task.wait())

        let log = server.sentBytes
        let before = log.rate(fromByte: 1 << 20, toByte: 5 << 20)
        let after = log.rate(from: lowered + .seconds(1), to: lowered + .seconds(3))
        let unlimited = log.last.flatMap { log.rate(from: raised, to: $0.at) }
        print("""
            limit \(mebibytes(Double(2 * Self.limit))): \(mebibytes(before)); lowered to \(mebibytes(Double(lower))): \
            \(mebibytes(after)); no limit: \(mebibytes(unlimited))
            """)
        let measuredBefore = try #require(before), measuredAfter = try #require(after)
        #expect(measuredAfter <= Double(lower) * Self.margin, "\(mebibytes(measuredAfter)) after lowering")
        #expect(measuredBefore > Double(lower) * 2, "\(mebibytes(measuredBefore)) before lowering")
        #expect(try #require(unlimited) > Double(lower) * 2, "no limit: \(mebibytes(unlimited))")
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Several connections on one file, against a server that limits each connection (as many
/// hosts do): every rule of the resume table per range request, the exact bytes on disk.
struct ConnectionsTests {
    let server: FaultServer
    let harness: DownloadHarness
    /// Large enough for four slices of at least 2 MiB.
    static let body = TestData.bytes(count: 10 << 20, seed: 31)
    static let newBody = TestData.bytes(count: 10 << 20, seed: 32)
    static let etag = "\"big\""
    /// Per connection: the whole file would take about 5 s on one, well past
    /// `RangeDownload.worthSeconds` even when the speed is judged late on a busy machine.
    static let perConnection = Fault.throttle(bytesPerSecond: 2 << 20)

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    /// Serves the body throttled per connection, with `faults` on request `number` (1: the first).
    private func serve(faults: [Fault] = [], onRequest number: Int = 2,
                       perConnection: Fault = ConnectionsTests.perConnection) -> String {
        server.serve("/v.bin", body: Self.body, etag: Self.etag, faults: [perConnection],
                     faultyRequests: number - 1)
        if !faults.isEmpty { server.addFaults([perConnection] + faults, to: "/v.bin", requests: 1) }
        server.addFaults([perConnection], to: "/v.bin", requests: nil)
        return server.url("/v.bin")
    }

    private func expectExact(_ state: DownloadState, _ body: [UInt8] = ConnectionsTests.body) throws {
        let path = try #require(state.completedPath, "state was \(state)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
    }

    /// The ranges asked for with a start and an end: the extra connections.
    private var slices: [RecordedRequest] {
        server.requests(to: "/v.bin").filter { $0["range"].map { !$0.hasSuffix("-") } ?? false }
    }

    @Test func fourConnectionsFillTheFileExactly() throws {
        let url = serve()
        try expectExact(try harness.download(url))
        let requests = server.requests(to: "/v.bin")
        #expect(requests[0]["range"] == nil)
        #expect(slices.count >= 3, "\(requests.map { $0["range"] ?? "-" })")
        #expect(slices.allSatisfy { $0["if-range"] == Self.etag })
        #expect(Set(requests.map(\.connection)).count >= 4)
    }

    /// By default four connections open at once, and more while each raises the total rate:
    /// on a host limiting each connection the download has several.
    @Test func connectionsGrowAgainstAHostLimitingEachOne() throws {
        let url = serve()
        var options = DownloadHarness.quickOptions
        options.connections = 8
        options.growConnections = true
        try expectExact(try harness.download(url, options: options))
        #expect(Set(server.requests(to: "/v.bin").map(\.connection)).count >= 3)
    }

    /// A connection the network drops ends growth: the download keeps the four it started
    /// with, where the same file without the drop grows past them.
    @Test(arguments: [false, true])
    func aFailingConnectionEndsGrowth(failing: Bool) throws {
        // 1 MiB/s each: slices of 8 MiB, with more than two `minimumSlice` left when growth
        // first looks (two seconds after the split).
        let body = TestData.bytes(count: 32 << 20, seed: 33)
        let slow = Fault.throttle(bytesPerSecond: 1 << 20)
        server.serve("/big.bin", body: body, etag: Self.etag, faults: [slow], faultyRequests: 1)
        if failing { server.addFaults([slow, .dropAfter(bytes: 300_000)], to: "/big.bin", requests: 1) }
        server.addFaults([slow], to: "/big.bin", requests: nil)
        HostSlots.shared.resetPeak("127.0.0.1")
        try expectExact(try harness.download(server.url("/big.bin")), body)
        let peak = HostSlots.shared.peak("127.0.0.1")
        if failing {
            #expect(peak <= ConnectionGrowth.startCount, "peak \(peak)")
        } else {
            #expect(peak > ConnectionGrowth.startCount, "peak \(peak)")
        }
    }

    /// An explicit count (`--connections N`) opens them at once.
    @Test func anExplicitCountOpensThemAtOnce() throws {
        let url = serve()
        var options = DownloadHarness.quickOptions
        options.connections = 4
        options.growConnections = false
        try expectExact(try harness.download(url, options: options))
        #expect(slices.count >= 3)
    }

    @Test func aFileThatEndsWithinSecondsOnOneConnectionGetsNoMore() throws {
        // Unthrottled loopback brings the whole file far sooner than `RangeDownload.worthSeconds`.
        server.serve("/fast.bin", body: Self.body, etag: Self.etag)
        try expectExact(try harness.download(server.url("/fast.bin")))
        #expect(server.requests(to: "/fast.bin").map { $0["range"] } == [nil])
    }

    /// A line one connection fills still stalls for a moment (another process on the CPU, a
    /// round trip): the primary's average decides, not the empty milliseconds. Split at the
    /// first empty window before, on a busy machine (`ConnectionGrowthNginxTests`).
    @Test func aMomentsStallOnAFastLineGetsNoMore() throws {
        let body = TestData.bytes(count: 32 << 20, seed: 34)
        let half = body.count / 2
        server.serve("/stalls.bin", body: body, etag: Self.etag)
        server.hold("/stalls.bin", offsets: half..<body.count)
        let task = try harness.task(server.url("/stalls.bin"))
        task.start()
        #expect(waitUntil(timeout: .seconds(30)) { server.bytesSent(of: "/stalls.bin") >= half })
        // The stall itself, a tenth of a second: cut short by a second request, the failure.
        _ = waitUntil(timeout: .milliseconds(100)) { server.requests(to: "/stalls.bin").count > 1 }
        server.release("/stalls.bin")
        try expectExact(task.wait(), body)
        #expect(server.requests(to: "/stalls.bin").map { $0["range"] } == [nil])
    }

    @Test func oneConnectionKeepsTodaysRequests() throws {
        let url = serve()
        var options = DownloadHarness.quickOptions
        options.connections = 1
        try expectExact(try harness.download(url, options: options))
        #expect(server.requests(to: "/v.bin").map { $0["range"] } == [nil])
    }

    /// An extra connection's answer that cannot fill its slice: never written, the download
    /// goes on (and ends) with one connection.
    @Test(arguments: [Fault.wrongRangeStart(shift: -4096), .ignoreRange, .status(416), .status(503)])
    func refusedSliceFallsBackToOneConnection(_ fault: Fault) throws {
        let url = serve(faults: [fault])
        try expectExact(try harness.download(url))
        #expect(slices.count >= 1)
    }

    @Test func droppedSliceIsRetriedFromItsNextByteWhileTheOthersGoOn() throws {
        let url = serve(faults: [.dropAfter(bytes: 300_000)])
        try expectExact(try harness.download(url))
        let second = try #require(server.requests(to: "/v.bin").dropFirst().first)
        let start = try #require(second["range"].flatMap { Int64($0.dropFirst(6).split(separator: "-")[0]) })
        #expect(server.requests(to: "/v.bin").contains { $0["range"]?.hasPrefix("bytes=\(start + 300_000)-") == true },
                "the dropped slice continues from its own next byte")
    }

    @Test func fileChangedBetweenConnectionsStartsOverWithoutMixing() throws {
        server.serve("/v.bin", body: Self.body, etag: Self.etag,
                     faults: [Self.perConnection, .changeContent(body: Self.newBody, etag: "\"v2\"")], faultyRequests: 1)
        server.addFaults([Self.perConnection], to: "/v.bin", requests: nil)
        try expectExact(try harness.download(server.url("/v.bin")), Self.newBody)
        #expect(server.requests(to: "/v.bin").contains { $0["range"] == nil && $0.connection > 1 },
                "the whole file was asked for again")
    }

    @Test func pausedRangesResumeExactlyAskingOnlyForTheHoles() throws {
        // The pause must land between the first record with several ranges and the end: at
        // 1 MiB/s each 2.5 MiB part takes seconds, not the fraction of one a busy machine can lose.
        let url = serve(perConnection: .throttle(bytesPerSecond: 1 << 20))
        let task = try harness.task(url)
        task.start()
        #expect(waitUntil(timeout: .seconds(20)) {
            (harness.partialRecord(url)?.durable.ranges.count ?? 0) >= 3
        })
        task.pause()
        #expect(task.wait() == .paused)
        let record = try #require(harness.partialRecord(url))
        #expect(harness.durableRangesMatch(url, Self.body))
        let before = server.requests(to: "/v.bin").count

        task.start()
        try expectExact(task.wait())
        for request in server.requests(to: "/v.bin").dropFirst(before) {
            let first = try #require(request["range"].flatMap { Int64($0.dropFirst(6).split(separator: "-")[0]) })
            #expect(!record.durable.contains(first), "\(request["range"] ?? "") asks again for bytes on disk")
        }
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Connections that adapt, against a real nginx: with `limit_rate` per connection they grow
/// past the four they start with, never past the ceiling; unthrottled, or refusing ranges, one.
/// The count is the most connections to the host open at once (`HostSlots.peak`), a count of the
/// whole process: it holds with the suites run one at a time, as `scripts/test` runs them.
@Suite(.serialized)
struct ConnectionGrowthNginxTests {
    let site: TemporaryDirectory
    let harness: DownloadHarness
    /// Bytes per second nginx sends each connection.
    static let perConnection = 1 << 20
    /// At 1 MiB/s per connection, four connections are still mid-slice, each with more than two
    /// `RangeDownload.minimumSlice` left, when the first two intervals of growth have passed.
    static let body = TestData.bytes(count: 48 << 20, seed: 41)
    static let host = "127.0.0.1"

    init() throws {
        site = try TemporaryDirectory(prefix: "fetchplay-site")
        try site.write(Self.body, to: "v.bin")
        harness = try DownloadHarness()
        HostSlots.shared.resetPeak(Self.host)
    }

    private func expectExact(_ state: DownloadState) throws {
        let path = try #require(state.completedPath, "state was \(state)")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
    }

    @Test(arguments: [5, 8])
    func growPastFourUpToTheCeilingWhereEachConnectionIsLimited(ceiling: Int) throws {
        let nginx = try Nginx(serving: site.path, limitRate: Self.perConnection)
        defer { nginx.stop() }
        var options = DownloadHarness.quickOptions
        // The app's setting, which goes before the options' own count (16 here).
        options.connections = 16
        options.connectionCeiling = ConnectionCeiling(ceiling)
        try expectExact(try harness.download(nginx.url("/v.bin"), options: options))
        let peak = HostSlots.shared.peak(Self.host)
        #expect(peak > ConnectionGrowth.startCount && peak <= ceiling, "peak \(peak), ceiling \(ceiling)")
    }

    /// One connection fills loopback: the file comes well within `RangeDownload.worthSeconds`.
    @Test func oneWhereOneFillsTheLine() throws {
        let nginx = try Nginx(serving: site.path)
        defer { nginx.stop() }
        try expectExact(try harness.download(nginx.url("/v.bin")))
        #expect(HostSlots.shared.peak(Self.host) == 1)
    }

    @Test func oneWhereTheServerRefusesRanges() throws {
        // 16 MiB/s: three seconds on one connection, past `RangeDownload.worthSeconds`, so that
        // ranges honoured would have split it.
        let nginx = try Nginx(serving: site.path, limitRate: 16 * Self.perConnection, maxRanges: 0)
        defer { nginx.stop() }
        try expectExact(try harness.download(nginx.url("/v.bin")))
        #expect(HostSlots.shared.peak(Self.host) == 1)
    }
}

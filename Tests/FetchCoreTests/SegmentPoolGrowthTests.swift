@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// A presentation's pool opens more connections as a file does (`GrowthWatch`): past the four it
/// starts with where the host limits each connection (a real nginx with `limit_rate`), never
/// past the ceiling. The count is the most connections to
/// the host open at once (`HostSlots.peak`), a count of the whole process: it holds with the
/// suites run one at a time, as `scripts/test` runs them.
@Suite(.serialized)
struct SegmentPoolGrowthTests {
    @Test(arguments: [6, 8])
    func aDASHPresentationGrowsPastFourWhereEachConnectionIsLimited(ceiling: Int) throws {
        let clip = try Clips.dashLecture()
        // 12 video and 12 audio segments; at 128 KiB/s a connection, four take seconds.
        let nginx = try Nginx(serving: clip.folder, limitRate: 128 << 10)
        defer { nginx.stop() }
        let host = "127.0.0.1"
        HostSlots.shared.resetPeak(host)
        var options = DownloadHarness.quickOptions
        options.connections = 16
        options.connectionCeiling = ConnectionCeiling(ceiling)
        let state = try DownloadHarness().download(nginx.url("/lecture/index.mpd"), options: options)
        #expect(state.completedPath != nil, "ended \(state)")
        let peak = HostSlots.shared.peak(host)
        #expect(peak > ConnectionGrowth.startCount && peak <= ceiling, "peak \(peak), ceiling \(ceiling)")
    }
}

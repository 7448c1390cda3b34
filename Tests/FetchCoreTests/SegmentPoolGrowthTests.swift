@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// A presentation's pool opens more connections as a file does: past the four it starts with
/// where the host limits each connection (a real nginx with `limit_rate`), never past the
/// ceiling; and the rule alone, on the rates it is given. The count is the most connections to
/// the host open at once (`HostSlots.peak`), a count of the whole process: it holds with the
/// suites run one at a time, as `scripts/test` runs them.
@Suite(.serialized)
struct SegmentPoolGrowthTests {
    @Test func theFirstLookAfterHalfASecondDoublesThenOnlyARiseOfHalfAShareEachDoublesAgain() {
        var growth = SegmentPoolGrowth(start: 4, ceiling: 16)
        #expect(growth.look(now: 0, received: 0, held: false, left: 100) == 0, "the first look starts the interval")
        #expect(growth.look(now: 0.3, received: 300, held: false, left: 100) == 0, "too soon")
        #expect(growth.look(now: 0.5, received: 500, held: false, left: 100) == 4)
        // The new connections' first burst is not measured; then a second at twice the rate.
        #expect(growth.look(now: 0.6, received: 10_000, held: false, left: 100) == 0)
        #expect(growth.look(now: 0.75, received: 10_000, held: false, left: 100) == 0)
        #expect(growth.look(now: 1.75, received: 12_000, held: false, left: 100) == 8)
        // Eight more bring nothing: growing is over for good.
        #expect(growth.look(now: 2.0, received: 12_000, held: false, left: 100) == 0)
        #expect(growth.look(now: 3.0, received: 14_000, held: false, left: 100) == 0)
        #expect(!growth.isGrowing)
    }

    @Test func nothingIsMeasuredWhileAViewerWaitsNorOpenedWithoutPiecesForIt() {
        var growth = SegmentPoolGrowth(start: 4, ceiling: 8)
        _ = growth.look(now: 0, received: 0, held: false, left: 100)
        #expect(growth.look(now: 0.6, received: 600, held: true, left: 100) == 0, "measured while a viewer waited")
        _ = growth.look(now: 0.7, received: 600, held: false, left: 100)
        #expect(growth.look(now: 1.3, received: 1200, held: false, left: 3) == 0, "opened four with three pieces left")
        #expect(growth.look(now: 1.9, received: 1800, held: false, left: 4) == 4)
    }

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

@testable import FetchCore
import Testing

/// The one watch that opens more connections, for a file's ranges and a presentation's pieces,
/// on the rates and times it is given.
struct GrowthWatchTests {
    @Test func theFirstLookAfterHalfASecondDoublesThenOnlyARiseOfHalfAShareEachDoublesAgain() {
        var growth = GrowthWatch(start: 4, ceiling: 16)
        #expect(growth.look(now: 0, received: 0, held: false, canSplit: true) == 0, "the first look starts the interval")
        #expect(growth.look(now: 0.3, received: 300, held: false, canSplit: true) == 0, "too soon")
        #expect(growth.look(now: 0.5, received: 500, held: false, canSplit: true) == 4)
        #expect(growth.target == 8)
        // The new connections' first burst is not measured; then a second at twice the rate.
        #expect(growth.look(now: 0.6, received: 10_000, held: false, canSplit: true) == 0)
        #expect(growth.look(now: 0.75, received: 10_000, held: false, canSplit: true) == 0)
        #expect(growth.look(now: 1.75, received: 12_000, held: false, canSplit: true) == 8)
        // Eight more bring nothing: growing is over for good.
        #expect(growth.look(now: 2.0, received: 12_000, held: false, canSplit: true) == 0)
        #expect(growth.look(now: 3.0, received: 14_000, held: false, canSplit: true) == 0)
        #expect(!growth.isGrowing)
    }

    /// A viewer waiting for their pieces (a pool), or a connection with no first bytes yet (a
    /// file): nothing measured then, nor in the burst after.
    @Test func nothingIsMeasuredWhileHeldNorInTheBurstAfter() {
        var growth = GrowthWatch(start: 4, ceiling: 8)
        _ = growth.look(now: 0, received: 0, held: false, canSplit: true)
        #expect(growth.look(now: 0.6, received: 600, held: true, canSplit: true) == 0, "measured while held")
        #expect(growth.look(now: 0.7, received: 100_000, held: false, canSplit: true) == 0, "the burst after started an interval")
        _ = growth.look(now: 0.9, received: 100_000, held: false, canSplit: true)
        #expect(growth.look(now: 1.5, received: 100_600, held: false, canSplit: true) == 4)
    }

    @Test func withNothingLeftToShareItWaitsWithoutSettling() {
        var growth = GrowthWatch(start: 4, ceiling: 8)
        _ = growth.look(now: 0, received: 0, held: false, canSplit: true)
        #expect(growth.look(now: 0.6, received: 600, held: false, canSplit: false) == 0, "opened with nothing to share")
        #expect(growth.isGrowing)
        #expect(growth.look(now: 1.2, received: 1200, held: false, canSplit: true) == 4)
    }

    /// A file's first split opens its connections outside a look: their burst is not measured.
    @Test func connectionsOpenedElsewhereGetTheirBurstToo() {
        var growth = GrowthWatch(ceiling: 8)
        growth.opened(at: 10)
        #expect(growth.look(now: 10.1, received: 4 << 20, held: false, canSplit: true) == 0)
        #expect(growth.look(now: 10.25, received: 4 << 20, held: false, canSplit: true) == 0, "the interval starts here")
        #expect(growth.look(now: 10.75, received: 6 << 20, held: false, canSplit: true) == 4)
    }

    @Test func aStoppedWatchNeverOpensMore() {
        var growth = GrowthWatch(ceiling: 8)
        growth.stop()
        #expect(!growth.isGrowing)
        _ = growth.look(now: 0, received: 0, held: false, canSplit: true)
        #expect(growth.look(now: 5, received: 1 << 30, held: false, canSplit: true) == 0)
        #expect(growth.target == ConnectionGrowth.startCount)
    }
}

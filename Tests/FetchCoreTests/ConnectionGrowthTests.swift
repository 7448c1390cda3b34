@testable import FetchCore
import XCTest

/// The decision to open more connections, from the total rate per interval: pure cases.
final class ConnectionGrowthTests: XCTestCase {
    private let mib = 1048576.0

    /// Four at once, the old fixed count, before anything is measured.
    func testStartsWithFour() {
        XCTAssertEqual(ConnectionGrowth(ceiling: 8).target, 4)
        XCTAssertEqual(ConnectionGrowth(ceiling: 16).target, 4)
        XCTAssertEqual(ConnectionGrowth(ceiling: 2).target, 2, "never more than the ceiling")
    }

    /// A host limiting each connection to 4 MiB/s: each one added adds 4 MiB/s; the count
    /// doubles up to the ceiling.
    func testDoublesWhileEachConnectionAddsItsShare() {
        var growth = ConnectionGrowth(ceiling: 16)
        var decisions: [ConnectionGrowth.Decision] = []
        for _ in 0..<4 { decisions.append(growth.measured(rate: Double(growth.target) * 4 * mib, canSplit: true)) }
        XCTAssertEqual(growth.target, 16)
        XCTAssertEqual(decisions, [.open(4), .open(8), .hold, .hold])
    }

    /// A line the first connections already fill: the next four bring nothing, and it holds at eight.
    func testHoldsWhereTheLineIsFull() {
        var growth = ConnectionGrowth(ceiling: 16)
        XCTAssertEqual(growth.measured(rate: 100 * mib, canSplit: true), .open(4))
        XCTAssertEqual(growth.measured(rate: 101 * mib, canSplit: true), .hold)
        XCTAssertTrue(growth.settled)
        XCTAssertEqual(growth.measured(rate: 300 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 8)
    }

    /// Parameterised: rates measured after each step (the first with the four it starts with),
    /// and the count reached.
    func testTableOfRates() {
        let cases: [(name: String, rates: [Double], ceiling: Int, target: Int)] = [
            // 4 → 8 needs 50 % more (half a share for each of four), 8 → 16 50 % too.
            ("40% more from four settles", [16, 22.4], 16, 8),
            ("just over half a share each grows", [16, 24.5, 37], 16, 16),
            ("the ceiling caps a doubling", [16, 32], 6, 6),
            ("a falling rate settles", [16, 12, 40], 16, 8),
            ("ceiling 1 never grows", [10, 20, 30], 1, 1),
            ("ceiling 8: one step", [16, 32, 64], 8, 8),
            ("a quiet interval after the step settles", [16, 0], 16, 8),
            ("quiet before, a burst after grows", [0, 4], 16, 16),
        ]
        for entry in cases {
            var growth = ConnectionGrowth(ceiling: entry.ceiling)
            for rate in entry.rates { _ = growth.measured(rate: rate * mib, canSplit: true) }
            XCTAssertEqual(growth.target, entry.target, entry.name)
        }
    }

    /// A server that refused a range or a failing connection ends growth for good.
    func testStopNeverGrowsAgain() {
        var growth = ConnectionGrowth(ceiling: 16)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: true), .open(4))
        growth.stop()
        XCTAssertEqual(growth.measured(rate: 40 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.measured(rate: 80 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 8)

        var fresh = ConnectionGrowth(ceiling: 8)
        fresh.stop()
        XCTAssertEqual(fresh.measured(rate: 16 * mib, canSplit: true), .hold)
        XCTAssertEqual(fresh.target, 4)
    }

    /// Slices too small to share: hold without settling, and grow once a large one is there.
    func testSmallSlicesWaitWithoutSettling() {
        var growth = ConnectionGrowth(ceiling: 16)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: false), .hold)
        XCTAssertFalse(growth.settled)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: true), .open(4))
        XCTAssertEqual(growth.measured(rate: 24 * mib, canSplit: false), .hold)
        XCTAssertEqual(growth.target, 8)
        XCTAssertEqual(growth.measured(rate: 24.5 * mib, canSplit: true), .open(8), "still measured against the rate before the step")
    }

    /// The ceiling is kept within 1...16, and so is the start.
    func testCeilingAndStartClamped() {
        XCTAssertEqual(ConnectionGrowth(ceiling: 40).ceiling, 16)
        XCTAssertEqual(ConnectionGrowth(ceiling: 0).ceiling, 1)
        XCTAssertEqual(ConnectionGrowth(ceiling: 8, start: 2).target, 2)
        XCTAssertEqual(ConnectionGrowth(ceiling: 4, start: 9).target, 4)
        var atCeiling = ConnectionGrowth(ceiling: 4)
        XCTAssertEqual(atCeiling.measured(rate: 16 * mib, canSplit: true), .hold)
        XCTAssertFalse(atCeiling.settled)
    }
}

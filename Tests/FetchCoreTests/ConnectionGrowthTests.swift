@testable import FetchCore
import XCTest

/// The decision to open one more connection, from the total rate per interval: pure cases.
final class ConnectionGrowthTests: XCTestCase {
    private let mib = 1048576.0

    /// Four at once, the old fixed count, before anything is measured.
    func testStartsWithFour() {
        XCTAssertEqual(ConnectionGrowth(ceiling: 8).target, 4)
        XCTAssertEqual(ConnectionGrowth(ceiling: 16).target, 4)
        XCTAssertEqual(ConnectionGrowth(ceiling: 2).target, 2, "never more than the ceiling")
    }

    /// A host limiting each connection to 4 MiB/s: each one added adds 4 MiB/s, up to the ceiling.
    func testGrowsWhileEachConnectionAddsItsShare() {
        var growth = ConnectionGrowth(ceiling: 8)
        var decisions: [ConnectionGrowth.Decision] = []
        for _ in 0..<8 { decisions.append(growth.measured(rate: Double(growth.target) * 4 * mib, canSplit: true)) }
        XCTAssertEqual(growth.target, 8)
        XCTAssertEqual(decisions, Array(repeating: .openOne, count: 4) + Array(repeating: .hold, count: 4))
    }

    /// A line the first connections already fill: the fifth brings nothing, and it holds at five.
    func testHoldsWhereTheLineIsFull() {
        var growth = ConnectionGrowth(ceiling: 8)
        XCTAssertEqual(growth.measured(rate: 100 * mib, canSplit: true), .openOne)
        XCTAssertEqual(growth.measured(rate: 101 * mib, canSplit: true), .hold)
        XCTAssertTrue(growth.settled)
        XCTAssertEqual(growth.measured(rate: 300 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 5)
    }

    /// Parameterised: rates measured after each added connection (the first with the four it
    /// starts with), and the count reached.
    func testTableOfRates() {
        let cases: [(name: String, rates: [Double], ceiling: Int, target: Int)] = [
            // 4 → 5 needs 12.5 % (half of a quarter), 5 → 6 10 %, 6 → 7 about 8.3 %, 7 → 8 about 7.1 %.
            ("10% more from four settles", [16, 17.6], 8, 5),
            ("just over half a share grows", [16, 18.1, 20.0, 21.7, 23.3], 8, 8),
            ("a share and a half more still one at a time", [16, 40, 80], 8, 7),
            ("a falling rate settles", [16, 20, 15, 40], 8, 6),
            ("ceiling 1 never grows", [10, 20, 30], 1, 1),
            ("ceiling 6", [16, 20, 24, 28, 32], 6, 6),
            ("a line that saturates at six", [16, 20, 24, 24.5, 40], 16, 7),
            ("a quiet interval after the add settles", [16, 0], 8, 5),
            ("quiet before, a burst after grows", [0, 4, 8], 8, 7),
            ("a 7 → 8 step of a full share grows", [16, 20, 24, 28, 32], 8, 8),
        ]
        for entry in cases {
            var growth = ConnectionGrowth(ceiling: entry.ceiling)
            for rate in entry.rates { _ = growth.measured(rate: rate * mib, canSplit: true) }
            XCTAssertEqual(growth.target, entry.target, entry.name)
        }
    }

    /// A server that refused a range or a failing connection ends growth for good.
    func testStopNeverGrowsAgain() {
        var growth = ConnectionGrowth(ceiling: 8)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: true), .openOne)
        growth.stop()
        XCTAssertEqual(growth.measured(rate: 20 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.measured(rate: 80 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 5)

        var fresh = ConnectionGrowth(ceiling: 8)
        fresh.stop()
        XCTAssertEqual(fresh.measured(rate: 16 * mib, canSplit: true), .hold)
        XCTAssertEqual(fresh.target, 4)
    }

    /// Slices too small to share: hold without settling, and grow once a large one is there.
    func testSmallSlicesWaitWithoutSettling() {
        var growth = ConnectionGrowth(ceiling: 8)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: false), .hold)
        XCTAssertFalse(growth.settled)
        XCTAssertEqual(growth.measured(rate: 16 * mib, canSplit: true), .openOne)
        XCTAssertEqual(growth.measured(rate: 20 * mib, canSplit: false), .hold)
        XCTAssertEqual(growth.target, 5)
        XCTAssertEqual(growth.measured(rate: 18.5 * mib, canSplit: true), .openOne, "still measured against the rate before the add")
        XCTAssertEqual(growth.target, 6)
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

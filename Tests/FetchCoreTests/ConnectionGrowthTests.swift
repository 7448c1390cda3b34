@testable import FetchCore
import XCTest

/// The decision to open one more connection, from the total rate per interval: pure cases.
final class ConnectionGrowthTests: XCTestCase {
    private let mib = 1048576.0

    /// A host limiting each connection to 4 MiB/s: each one added adds 4 MiB/s, up to the ceiling.
    func testGrowsWhileEachConnectionAddsItsShare() {
        var growth = ConnectionGrowth(ceiling: 8)
        var decisions: [ConnectionGrowth.Decision] = []
        for _ in 0..<12 { decisions.append(growth.measured(rate: Double(growth.target) * 4 * mib, canSplit: true)) }
        XCTAssertEqual(growth.target, 8)
        XCTAssertEqual(decisions.filter { $0 == .openOne }.count, 7)
        XCTAssertEqual(Array(decisions.suffix(5)), Array(repeating: .hold, count: 5))
    }

    /// A line one connection fills: the probe's second connection brings nothing, and it holds.
    func testHoldsWhereOneFillsTheLine() {
        var growth = ConnectionGrowth(ceiling: 8)
        XCTAssertEqual(growth.measured(rate: 100 * mib, canSplit: true), .openOne)
        XCTAssertEqual(growth.measured(rate: 101 * mib, canSplit: true), .hold)
        XCTAssertTrue(growth.settled)
        XCTAssertEqual(growth.measured(rate: 300 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 2)
    }

    /// Parameterised: rates after each added connection, and the count reached.
    func testTableOfRates() {
        let cases: [(name: String, rates: [Double], ceiling: Int, target: Int)] = [
            ("10% more settles", [10, 11], 8, 2),
            ("just over 15% grows", [10, 11.6, 13.5], 8, 4),
            ("a falling rate settles", [10, 20, 15, 40], 8, 3),
            ("ceiling 1 never grows", [10, 20, 30], 1, 1),
            ("ceiling 3", [10, 20, 30, 40, 50], 3, 3),
            ("a line that saturates at 3", [4, 8, 12, 12.5, 30], 16, 4),
            ("a quiet interval after the add settles", [4, 0], 8, 2),
            ("quiet before, a burst after grows", [0, 4, 8], 8, 4),
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
        XCTAssertEqual(growth.measured(rate: 4 * mib, canSplit: true), .openOne)
        growth.stop()
        XCTAssertEqual(growth.measured(rate: 8 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.measured(rate: 80 * mib, canSplit: true), .hold)
        XCTAssertEqual(growth.target, 2)

        var fresh = ConnectionGrowth(ceiling: 8)
        fresh.stop()
        XCTAssertEqual(fresh.measured(rate: 4 * mib, canSplit: true), .hold)
        XCTAssertEqual(fresh.target, 1)
    }

    /// Slices too small to share: hold without settling, and grow once a large one is there.
    func testSmallSlicesWaitWithoutSettling() {
        var growth = ConnectionGrowth(ceiling: 8)
        XCTAssertEqual(growth.measured(rate: 4 * mib, canSplit: false), .hold)
        XCTAssertFalse(growth.settled)
        XCTAssertEqual(growth.measured(rate: 4 * mib, canSplit: true), .openOne)
        XCTAssertEqual(growth.measured(rate: 8 * mib, canSplit: false), .hold)
        XCTAssertEqual(growth.target, 2)
        XCTAssertEqual(growth.measured(rate: 8.1 * mib, canSplit: true), .openOne, "still measured against the rate before the add")
        XCTAssertEqual(growth.target, 3)
    }

    /// The ceiling is kept within 1...16, and so is the start.
    func testCeilingAndStartClamped() {
        XCTAssertEqual(ConnectionGrowth(ceiling: 40).ceiling, 16)
        XCTAssertEqual(ConnectionGrowth(ceiling: 0).ceiling, 1)
        XCTAssertEqual(ConnectionGrowth(ceiling: 8, start: 2).target, 2)
        XCTAssertEqual(ConnectionGrowth(ceiling: 4, start: 9).target, 4)
        var atCeiling = ConnectionGrowth(ceiling: 2, start: 2)
        XCTAssertEqual(atCeiling.measured(rate: 4 * mib, canSplit: true), .hold)
        XCTAssertFalse(atCeiling.settled)
    }
}

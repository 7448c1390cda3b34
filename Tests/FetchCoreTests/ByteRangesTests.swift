@testable import FetchCore
import Foundation
import Testing

struct ByteRangesTests {
    @Test func aNegativeTotalIsNeverCovered() {
        #expect(!ByteRanges([0..<10]).covers(total: -1))
        #expect(!ByteRanges().covers(total: -194_304))
        #expect(ByteRanges().covers(total: 0))
        #expect(ByteRanges([0..<10]).covers(total: 10))
    }

    @Test func insertMergesOverlappingAndTouchingRanges() {
        var set = ByteRanges()
        set.insert(10..<20)
        set.insert(30..<40)
        #expect(set.ranges == [10..<20, 30..<40])
        set.insert(20..<25)
        #expect(set.ranges == [10..<25, 30..<40], "touching ranges merge")
        set.insert(0..<5)
        set.insert(24..<31)
        #expect(set.ranges == [0..<5, 10..<40])
        set.insert(3..<50)
        #expect(set.ranges == [0..<50])
        set.insert(60..<60)
        #expect(set.ranges == [0..<50], "an empty range adds nothing")
        #expect(set.count == 50)
    }

    @Test func gapsPrefixAndCoverage() {
        let set = ByteRanges([0..<10, 20..<30, 50..<60])
        #expect(set.gaps(upTo: 70) == [10..<20, 30..<50, 60..<70])
        #expect(set.gaps(upTo: 25) == [10..<20])
        #expect(set.prefixLength == 10)
        #expect(ByteRanges([5..<9]).prefixLength == 0)
        #expect(!set.covers(total: 60))
        #expect(ByteRanges([0..<60]).covers(total: 60))
        #expect(ByteRanges().covers(total: 0))
        #expect(set.clamped(to: 25).ranges == [0..<10, 20..<25])
        #expect(set.contains(25) && !set.contains(30))
    }

    @Test func subtractingCutsEveryOverlap() {
        let set = ByteRanges([0..<10, 20..<30])
        #expect(set.subtracting(ByteRanges([5..<22])).ranges == [0..<5, 22..<30])
        #expect(set.subtracting(ByteRanges([0..<10, 20..<30])).isEmpty)
        #expect(set.subtracting(ByteRanges([12..<18])) == set)
        #expect(set.subtracting(ByteRanges([2..<3, 25..<26])).ranges == [0..<2, 3..<10, 20..<25, 26..<30])
    }

    @Test func recordsReadAndWriteThemAsPairs() throws {
        let set = ByteRanges([0..<10, 20..<30])
        let data = try JSONEncoder().encode(set)
        #expect(String(decoding: data, as: UTF8.self) == "[[0,10],[20,30]]")
        #expect(try JSONDecoder().decode(ByteRanges.self, from: data) == set)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ByteRanges.self, from: Data("[[5,1]]".utf8)) }
    }
}

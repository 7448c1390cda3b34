import FetchCore
import Testing

struct FormattingTests {
    @Test func hostileDurationsNeverTrap() {
        #expect(TimeFormat.wholeSeconds(.nan) == 0)
        #expect(TimeFormat.wholeSeconds(-5) == 0)
        #expect(TimeFormat.wholeSeconds(.infinity) == 0)
        #expect(TimeFormat.wholeSeconds(1e300) == 3_153_600_000)
        #expect(TimeFormat.wholeSeconds(2.5, rounding: .down) == 2)
        #expect(TimeFormat.string(9e18 / 0.5) == "876000 h 0 min")
    }

    @Test func sizesAndTimesForPeople() {
        #expect(ByteFormat.string(999) == "999 bytes")
        #expect(ByteFormat.string(1_300_000) == "1.3 MB")
        #expect(ByteFormat.string(512 * 1024 * 1024) == "537 MB")
        #expect(TimeFormat.string(42) == "42 s")
        #expect(TimeFormat.string(185) == "3 min 5 s")
    }
}

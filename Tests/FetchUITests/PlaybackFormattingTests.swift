import Foundation
import Testing
@testable import FetchUI

struct PlaybackFormattingTests {
    @Test(arguments: [(0.0, "0:00"), (5.9, "0:05"), (83, "1:23"), (600, "10:00"), (3723, "1:02:03"), (-1, "0:00"),
                      (.nan, "0:00")])
    func times(seconds: Double, text: String) {
        #expect(PlaybackTime.string(seconds) == text)
    }

    @Test(arguments: [(1.0, 60.0, false), (3, 60, true), (30, 60, true), (58, 60, false), (100, nil, true)] as [(Double, Double?, Bool)])
    func worthResuming(position: Double, duration: Double?, expected: Bool) {
        #expect(PlaybackPositions.isWorthResuming(position, duration: duration) == expected)
    }
}

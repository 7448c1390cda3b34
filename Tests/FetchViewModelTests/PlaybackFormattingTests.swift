import Foundation
import Testing
@testable import FetchViewModel

struct PlaybackFormattingTests {
    @Test(arguments: [(0.0, "0:00"), (5.9, "0:05"), (83, "1:23"), (600, "10:00"), (3723, "1:02:03"), (-1, "0:00"),
                      (.nan, "0:00")])
    func times(seconds: Double, text: String) {
        #expect(PlaybackTime.string(seconds) == text)
    }
}

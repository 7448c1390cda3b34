import GLibSupport
import ThreadKit
import Testing
import TestSupport

/// A delay on the main loop: once, restarted by a second start, never after a cancel or a drop.
@Suite @MainActor
struct OneShotTimerTests {
    @Test func runsOnceAndTheLastStartWins() {
        let ran = Locked<[String]>([])
        let timer = OneShotTimer(milliseconds: 10)
        timer.start { ran.withLock { $0.append("first") } }
        timer.start { ran.withLock { $0.append("second") } }
        #expect(timer.isPending)
        #expect(runMainLoop { !timer.isPending })
        #expect(ran.withLock { $0 } == ["second"])
    }

    @Test func aCancelledOrDroppedTimerRunsNothing() {
        let ran = Locked(0)
        let cancelled = OneShotTimer(milliseconds: 10)
        cancelled.start { ran.withLock { $0 += 1 } }
        cancelled.cancel()
        #expect(!cancelled.isPending)
        var dropped: OneShotTimer? = OneShotTimer(milliseconds: 10)
        dropped?.start { ran.withLock { $0 += 1 } }
        dropped = nil
        // A later timer's turn comes after theirs would have.
        let marker = OneShotTimer(milliseconds: 40)
        marker.start {}
        #expect(runMainLoop { !marker.isPending })
        #expect(ran.withLock { $0 } == 0)
    }
}

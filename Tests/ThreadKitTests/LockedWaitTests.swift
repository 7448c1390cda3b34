import Foundation
import ThreadKit
import Testing
import TestSupport

/// `Locked.wait(until:)`: the process's one way to wait for a value, woken by `withLockAndNotify`.
struct LockedWaitTests {
    @Test func aWaiterWakesWhenTheValueItNeedsIsNotified() {
        let count = Locked(0)
        let seen = Locked<Int?>(nil)
        let waiter = Thread {
            seen.withLock { $0 = count.wait(until: { $0 >= 3 }) { $0 } }
        }
        waiter.start()
        for _ in 0..<3 { count.withLockAndNotify { $0 += 1 } }
        #expect(waitUntil(timeout: .seconds(10)) { seen.withLock { $0 } != nil })
        #expect(seen.withLock { $0 } == 3)
    }

    @Test func aChangeWithoutNotifyIsSeenAtTheNextNotifyAndATimeoutReturnsFalse() {
        let flag = Locked(false)
        #expect(!flag.wait(until: { $0 }, timeout: 0.05), "nothing came: the timeout ends the wait")
        flag.withLock { $0 = true }
        #expect(flag.wait(until: { $0 }, timeout: 0), "a condition that holds returns at once")
    }
}

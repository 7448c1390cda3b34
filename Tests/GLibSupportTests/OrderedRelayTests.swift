import Foundation
import GLibSupport
import ThreadKit
import Testing
import TestSupport

/// The frames' way to the main thread: in order, at most `depth` waiting, the oldest dropped.
@Suite @MainActor
struct OrderedRelayTests {
    /// Publishes `values` from another thread and waits until it has, without turning the main
    /// loop: as a main loop busy for a while sees them.
    func publishElsewhere(_ values: [Int], on relay: OrderedRelay<Int>) {
        let done = Gate()
        Thread {
            values.forEach(relay.publish)
            done.open()
        }.start()
        done.wait()
    }

    @Test func aBusyMainLoopGetsTheNewestTwoInOrder() {
        let delivered = Locked<[Int]>([])
        let relay = OrderedRelay<Int>(depth: 2) { value in delivered.withLock { $0.append(value) } }
        publishElsewhere([1, 2, 3], on: relay)
        #expect(runMainLoop { delivered.withLock { $0.count } == 2 })
        runMainLoop(for: .milliseconds(50))
        #expect(delivered.withLock { $0 } == [2, 3])
        #expect(relay.dropped == 1)

        publishElsewhere([4], on: relay)
        #expect(runMainLoop { delivered.withLock { $0.count } == 3 })
        #expect(delivered.withLock { $0 } == [2, 3, 4])
    }

    @Test func discardedValuesAreNeverDelivered() {
        let delivered = Locked<[Int]>([])
        let relay = OrderedRelay<Int>(depth: 2) { value in delivered.withLock { $0.append(value) } }
        publishElsewhere([1, 2], on: relay)
        relay.discardWaiting()
        publishElsewhere([3], on: relay)
        #expect(runMainLoop { delivered.withLock { $0.count } == 1 })
        runMainLoop(for: .milliseconds(50))
        #expect(delivered.withLock { $0 } == [3])
    }
}

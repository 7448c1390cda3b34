import Dispatch
import Foundation
import Locking
import Testing
import TestSupport

/// The shutdown's join: it waits for every job asked for, skips thumbnails nobody will see, and
/// says when something outlived its timeout.
@Suite(.serialized)
struct BackgroundWorkTests {
    @Test func quittingWaitsForNeededWorkAndSkipsWhatNobodyWillSee() {
        let queue = DispatchQueue(label: "fetchplay.test.work")
        let gate = DispatchSemaphore(value: 0)
        let ran = Locked<[String]>([])
        BackgroundWork.async(on: queue) {
            gate.wait()
            ran.withLock { $0.append("checkpoint") }
        }
        BackgroundWork.async(on: queue, .skippable) { ran.withLock { $0.append("thumbnail") } }
        BackgroundWork.async(on: queue) { ran.withLock { $0.append("record") } }
        let finished = Locked<Bool?>(nil)
        Thread {
            let done = BackgroundWork.finish(timeout: 30)
            finished.withLock { $0 = done }
        }.start()
        #expect(waitUntil(timeout: .seconds(10)) { BackgroundWork.isClosing })
        #expect(finished.withLock { $0 } == nil, "the shutdown did not wait for the checkpoint")
        gate.signal()
        #expect(waitUntil(timeout: .seconds(30)) { finished.withLock { $0 } != nil })
        #expect(finished.withLock { $0 } == true)
        #expect(ran.withLock { $0 } == ["checkpoint", "record"])
        // Once the shutdown returned, work is counted and runs as before.
        BackgroundWork.async(on: queue, .skippable) { ran.withLock { $0.append("thumbnail") } }
        #expect(waitUntil(timeout: .seconds(10)) { ran.withLock { $0.count } == 3 })
    }

    @Test func aJobPastTheTimeoutIsReported() {
        let job = BackgroundWork.begin()
        #expect(job != nil)
        #expect(!BackgroundWork.finish(timeout: 0.05))
        job?.end()
        #expect(BackgroundWork.finish(timeout: 30))
    }
}

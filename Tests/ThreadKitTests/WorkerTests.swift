import Dispatch
import Foundation
import ThreadKit
import Testing
import TestSupport

/// A worker's threads are its own: jobs in order, a stop that drops only what may be dropped,
/// and a join after which none of its threads runs.
@Suite(.serialized)
struct WorkerTests {
    @Test func jobsRunInOrderAndAStopDropsOnlyTheSkippableOnes() {
        let worker = Worker(name: "test worker", stage: .records, in: nil)
        let gate = Gate()
        let ran = Locked<[String]>([])
        worker.submit { gate.wait(); ran.withLock { $0.append("first") } }
        worker.submit(.skippable) { ran.withLock { $0.append("thumbnail") } }
        worker.submit { ran.withLock { $0.append("record") } }
        worker.stop()
        #expect(!worker.submit { ran.withLock { $0.append("late") } }, "a stopped worker took a job")
        gate.open()
        #expect(worker.join(timeout: 10))
        #expect(ran.withLock { $0 } == ["first", "record"])
        #expect(worker.runningThreads == 0)
    }

    @Test func aWorkerInNoShutdownIsJoinedByItsDeinit() {
        let ran = Locked<[String]>([])
        let started = Gate(), gate = Gate()
        var worker: Worker? = Worker(name: "test worker", threads: 2, stage: .media, in: nil)
        worker?.submit { started.open(); gate.wait(); ran.withLock { $0.append("long") } }
        worker?.whenStopping { gate.open() }
        #expect(started.wait(timeout: 10))
        worker = nil
        // The deinit stopped it (which released the job) and waited for it.
        #expect(ran.withLock { $0 } == ["long"])
    }

    @Test func aWorkerItsOwnerLetGoIsJoinedByItsShutdown() {
        let shutdown = Shutdown()
        let gate = Gate()
        let ran = Locked(0)
        var worker: Worker? = Worker(name: "test worker", stage: .playback, in: shutdown)
        worker?.submit { gate.wait(); ran.withLock { $0 += 1 } }
        worker = nil // returns at once: the job still runs
        #expect(shutdown.runningThreads(in: .playback) == 1)
        gate.open()
        #expect(shutdown.join(.playback, timeout: 10))
        #expect(shutdown.runningThreads() == 0)
        #expect(ran.withLock { $0 } == 1)
    }

    @Test func aWorkerWhoseThreadsEndedIsJoinedByTheReaperWithoutItsOwner() {
        let shutdown = Shutdown()
        // Let go at once: nobody but its shutdown can join it now.
        _ = Worker.run(name: "test warm-up", stage: .media, in: shutdown) {}
        _ = Worker(name: "test idle", threads: 3, stage: .playback, in: shutdown)
        #expect(waitUntil(timeout: .seconds(10)) { shutdown.unjoinedWorkers == 0 },
                "\(shutdown.unjoinedWorkers) ended workers were never joined")
        #expect(shutdown.runningThreads() == 0)
    }

    @Test func flushWaitsForEveryJobAskedBefore() {
        let worker = Worker(name: "test records", stage: .records, in: nil)
        let written = Locked(0)
        for _ in 0..<50 { worker.submit { written.withLock { $0 += 1 } } }
        worker.flush()
        #expect(written.withLock { $0 } == 50)
    }

    @Test func aJoinThatTimesOutSaysSoAndALaterOneFinishes() {
        let worker = Worker(name: "test slow", stage: .media, in: nil)
        let gate = Gate()
        worker.submit { gate.wait() }
        #expect(!worker.join(timeout: 0.05))
        #expect(worker.runningThreads == 1)
        gate.open()
        #expect(worker.join(timeout: 10))
        #expect(worker.runningThreads == 0)
    }
}

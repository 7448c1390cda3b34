import Dispatch
import Glibc
import ThreadKit
import Testing
import TestSupport
@testable import FetchPlayer

/// A player's and a thumbnailer's workers are theirs: when the owner goes, its worker finishes
/// what it must, is joined, and nothing of it runs afterwards.
@MainActor
@Suite(.serialized)
struct WorkerOwnershipTests {
    @Test func aPlayerDroppedWhileItsPipelineGoesDownLeavesItsWorkerToTheShutdownWhichJoinsIt() throws {
        let shutdown = Shutdown()
        let source = PipelineTeardownTests.BlockedSource()
        var player: Player? = Player(audio: .none, shutdown: shutdown)
        player?.open(source: source, title: "blocked")
        #expect(runMainLoop { source.entered })
        #expect(shutdown.runningThreads(in: .playback) == 1)
        // The player goes on the main thread without waiting: its pipeline still goes to NULL
        // on the worker, which waits for the streaming thread blocked in the read.
        player = nil
        #expect(!source.returned, "the player's deinit waited for the streaming thread")
        #expect(shutdown.runningThreads(in: .playback) == 1, "the worker ended before the pipeline was down")
        source.release()
        #expect(shutdown.join(.playback, timeout: 10), "the worker was not joined")
        #expect(shutdown.runningThreads() == 0)
        #expect(source.returned)
        // Nothing of the player runs any more: no read, no state change, no message.
        let reads = source.reads
        runMainLoop(for: .milliseconds(300))
        #expect(source.reads == reads)
    }

    @Test func aPlayerKeepsOneWorkerForEveryFileItOpens() throws {
        let shutdown = Shutdown()
        let player = Player(audio: .none, shutdown: shutdown)
        for seconds in [1.0, 2.0] {
            player.open(path: try Clips.webm(seconds: seconds))
            #expect(runMainLoop { player.state == .paused })
        }
        player.close()
        #expect(shutdown.runningThreads(in: .playback) == 1, "a worker per player, not per file")
        #expect(shutdown.join(.playback, timeout: 10))
        #expect(player.workerThreads == 0)
    }

    @Test func aThumbnailerDroppedWhileItsWorkerRunsCutsTheJobShortDropsTheRestAndJoins() throws {
        let log = Locked<[String]>([])
        let started = Gate()
        var thumbnailer: Thumbnailer? = Thumbnailer(in: nil)
        thumbnailer?.submit { probes in
            started.open()
            // A job that waits as a probe does: until the thumbnailer stops (or 10 s pass).
            let deadline = ContinuousClock.now + .seconds(10)
            while !probes.isCancelled, ContinuousClock.now < deadline { usleep(1000) }
            log.withLock { $0.append(probes.isCancelled ? "cut short" : "timed out") }
        }
        thumbnailer?.submit { _ in log.withLock { $0.append("ran after the thumbnailer went") } }
        var answered = false
        thumbnailer?.snapshot(path: try Clips.webm()) { _ in answered = true }
        #expect(started.wait(timeout: 10))
        // Made in no shutdown: the deinit joins the worker before it returns.
        thumbnailer = nil
        #expect(log.withLock { $0 } == ["cut short"])
        runMainLoop(for: .milliseconds(300))
        #expect(!answered, "a snapshot asked for before the thumbnailer went still answered")
        #expect(log.withLock { $0 } == ["cut short"])
    }

    @Test func aStoppedThumbnailersProbesRefuseAtOnce() throws {
        let shutdown = Shutdown()
        let thumbnailer = Thumbnailer(in: shutdown)
        let clip = try Clips.webm()
        let outcome = Locked<Result<VideoFrame, PlayerError>?>(nil)
        let started = Gate(), gate = Gate()
        thumbnailer.submit { probes in
            started.open()
            gate.wait()
            let result = Result { () throws(PlayerError) in try probes.snapshot(path: clip, timeout: 30) }
            outcome.withLock { $0 = result }
        }
        #expect(started.wait(timeout: 10))
        // The quit's media stage: the job was about to start a probe; it gets none.
        shutdown.join(.media, timeout: 0)
        gate.open()
        #expect(shutdown.join(.media, timeout: 10))
        #expect(thumbnailer.runningThreads == 0)
        let result = try #require(outcome.withLock { $0 })
        #expect(throws: Thumbnailer.Probes.stopped) { try result.get() }
        #expect(!thumbnailer.submit { _ in }, "a stopped thumbnailer took a job")
    }
}

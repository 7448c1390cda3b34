import Dispatch
import Foundation
import ThreadKit
import Testing
import TestSupport
@testable import FetchUI

/// The application's quit ends the process's work in its stated order, each step joined before
/// the next begins: the downloads, playback, thumbnails and warm-ups, records, settings.
@MainActor
@Suite(.serialized)
struct QuitOrderTests {
    /// What happened, in order, from every thread.
    final class Journal: Sendable {
        private let lines = Locked<[String]>([])
        func write(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A worker of `stage` busy until it is asked to stop; the journal says when it was asked
    /// and when its job ended.
    private func busyWorker(_ stage: Shutdown.Stage, in shutdown: Shutdown, journal: Journal,
                            then after: (@Sendable () -> Void)? = nil) -> Worker {
        let worker = Worker(name: "test \(stage)", stage: stage, in: shutdown)
        let gate = Gate()
        worker.whenStopping {
            journal.write("stop \(stage)")
            gate.open()
        }
        worker.submit {
            gate.wait()
            journal.write("\(stage) ended")
            after?()
        }
        return worker
    }

    @Test func quitJoinsDownloadsThenPlaybackThenMediaThenRecordsThenSettings() {
        let shutdown = Shutdown()
        let journal = Journal()
        // A download's worker, busy until the quit asks; as it ends it queues its last
        // checkpoint, which is written before playback stops.
        let checkpoints = Worker(name: "test checkpoints", stage: .checkpoints, in: shutdown)
        let downloads = busyWorker(.downloads, in: shutdown, journal: journal) {
            checkpoints.submit { journal.write("checkpoint written") }
        }
        // Owners still holding their workers when the quit comes (a player that went before
        // has stopped its own already: WorkerTests).
        let playback = busyWorker(.playback, in: shutdown, journal: journal)
        let media = busyWorker(.media, in: shutdown, journal: journal)
        // The last record write asks for a settings write, which the last step waits for.
        let settings = Worker(name: "test settings", stage: .settings, in: shutdown)
        let records = busyWorker(.records, in: shutdown, journal: journal) {
            guard settings.submit(.needed, { journal.write("settings ended") }) else { return journal.write("settings refused") }
        }

        FetchplayApplication.shutDown(shutdown)

        #expect(journal.all == [
            "stop downloads", "downloads ended", "checkpoint written",
            "stop playback", "playback ended",
            "stop media", "media ended",
            "stop records", "records ended",
            "settings ended",
        ])
        #expect(shutdown.runningThreads() == 0, "a worker still runs after the quit")
        #expect(downloads.runningThreads == 0 && playback.runningThreads == 0 && media.runningThreads == 0
                && records.runningThreads == 0 && checkpoints.runningThreads == 0 && settings.runningThreads == 0)
    }
}

import Foundation
import ThreadKit
import Testing
import TestSupport
@testable import FetchPlayer

/// A remux cancelled at any moment ends: its watcher wakes, takes the pipeline down and is
/// joined when the remux goes. A cancel that stopped the pipeline itself flushed the watcher's
/// wake from the bus whenever the watcher had not read it yet, and the join waited for ever.
@Suite(.serialized)
struct RemuxerCancelTests {
    @Test func aRemuxCancelledAtOnceAndDroppedIsJoined() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-remux-cancel")
        let output = folder.file("out.mp4")
        let rounds = Locked(0)
        let failure = Locked<String?>(nil)
        // On a thread of the test's: a join that never returns fails the wait below, not the run.
        Thread {
            for _ in 0..<20 {
                do {
                    let remux = try Remuxer(output: output, inputs: [.videoAndAudio])
                    remux.cancel()
                    #expect(throws: PlayerError.self) { try remux.finish() }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    return
                }
                rounds.withLock { $0 += 1 }
            }
        }.start()
        #expect(waitUntil(timeout: .seconds(60)) { rounds.withLock { $0 } == 20 || failure.withLock { $0 } != nil },
                "a cancelled remux never ended (\(rounds.withLock { $0 }) of 20)")
        #expect(failure.withLock { $0 } == nil)
    }
}

import Dispatch
import ThreadKit
import Testing
import TestSupport
@testable import FetchPlayer

/// Closing a video never waits on the main thread for GStreamer's streaming threads: the
/// pipeline goes down on a queue of its own, and the next file opens after it.
@MainActor
@Suite(.serialized)
struct PipelineTeardownTests {
    /// A video still arriving whose first read blocks its streaming thread until the test lets
    /// it go: taking the pipeline down (to NULL) must wait for that thread.
    final class BlockedSource: ByteSource {
        let size: Int64? = 1 << 20
        private let gate = Gate()
        private let progress = Locked((entered: false, returned: false, reads: 0))

        var entered: Bool { progress.withLock { $0.entered } }
        var returned: Bool { progress.withLock { $0.returned } }
        /// Reads asked for so far.
        var reads: Int { progress.withLock { $0.reads } }

        func release() { gate.open() }

        func read(at offset: Int64, count: Int, timeout: Double) throws -> [UInt8] {
            progress.withLock {
                $0.entered = true
                $0.reads += 1
            }
            // Ten seconds at most, so that a player that did wait for it still ends.
            gate.wait(timeout: 10)
            progress.withLock { $0.returned = true }
            return []
        }
    }

    @Test func closeReturnsWhileAStreamingThreadIsBlockedAndTheNextFileStillOpens() throws {
        let source = BlockedSource()
        let shutdown = Shutdown()
        let player = Player(audio: .none, shutdown: shutdown)
        player.open(source: source, title: "blocked")
        #expect(runMainLoop { source.entered })
        player.close()
        // Had close() waited for the NULL state, the read would have had to return first.
        let returnedBeforeCloseDid = source.returned
        #expect(!returnedBeforeCloseDid, "close() waited for the streaming thread")
        #expect(player.state == .idle)

        // The next file, opened while the old pipeline still goes down, plays once it is down.
        player.open(path: try Clips.webm(seconds: 1))
        source.release()
        #expect(runMainLoop { player.state == .paused })
        #expect(source.returned)
        player.close()
        #expect(shutdown.join(.playback, timeout: 10), "the pipelines went down")
    }
}

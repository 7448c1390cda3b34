@testable import FetchCore
import Foundation
import ThreadKit
import Testing
import TestSupport

/// Several downloads against the throttled test server: never more than N at once, the rest
/// start in the order they were added, and pause, continue and remove act on one URL only.
struct DownloadQueueTests {
    let server: FaultServer
    let harness: DownloadHarness
    let body = TestData.bytes(count: 120_000, seed: 11)

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    /// Watches a queue from its change callbacks: the most entries running at one moment, and
    /// the order in which URLs first took a slot.
    final class Watcher: Sendable {
        private let seen = Locked<(maxRunning: Int, started: [String])>((0, []))
        let queue = Locked<DownloadQueue?>(nil)

        func changed(_ url: String) {
            guard let queue = queue.withLock({ $0 }) else { return }
            let running = queue.entries.filter { $0.state == .downloading }
            let workers = queue.runningURLs.count
            seen.withLock { seen in
                seen.maxRunning = max(seen.maxRunning, running.count, workers)
                for entry in running where !seen.started.contains(entry.url) { seen.started.append(entry.url) }
            }
        }

        var maxRunning: Int { seen.withLock { $0.maxRunning } }
        var started: [String] { seen.withLock { $0.started } }
    }

    func makeQueue(maxRunning: Int, watcher: Watcher) -> DownloadQueue {
        let queue = DownloadQueue(cache: harness.cache, maxRunning: maxRunning, options: DownloadHarness.quickOptions) {
            watcher.changed($0.url)
        }
        watcher.queue.withLock { $0 = queue }
        return queue
    }

    func serve(_ count: Int, bytesPerSecond: Int = 200_000) -> [String] {
        (0..<count).map { index in
            server.serve("/v\(index).webm", body: body, etag: "\"v\(index)\"",
                         faults: [.throttle(bytesPerSecond: bytesPerSecond)])
            return server.url("/v\(index).webm")
        }
    }

    func allCompleted(_ queue: DownloadQueue) -> Bool {
        queue.entries.allSatisfy { if case .completed = $0.state { true } else { false } }
    }

    @Test func atMostNRunAndTheRestStartInOrder() throws {
        let urls = serve(5)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 2, watcher: watcher)
        for url in urls { try queue.add(url) }
        #expect(waitUntil(timeout: .seconds(5)) { queue.runningURLs.count == 2 })
        #expect(queue.entries.filter(\.isWaiting).map(\.url) == Array(urls.dropFirst(2)))
        #expect(waitUntil(timeout: .seconds(30)) { allCompleted(queue) }, "\(queue.entries)")
        #expect(watcher.maxRunning == 2)
        #expect(watcher.started.count == 5)
        #expect(Array(watcher.started.prefix(2)).sorted() == Array(urls.prefix(2)).sorted())
        #expect(Array(watcher.started.dropFirst(2)) == Array(urls.dropFirst(2)), "waiting ones started out of order")
        // The waiting ones reached the server only after the first two (their own order on the
        // wire is up to the threads' race to connect once two slots free at the same moment).
        let firstRequests = urls.map { url in server.requests.firstIndex { url.hasSuffix($0.path) }! }
        #expect(firstRequests[2...].allSatisfy { $0 > max(firstRequests[0], firstRequests[1]) })
        for entry in queue.entries {
            let path = try #require(entry.state.completedPath)
            #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        }
    }

    @Test func pausingOneLeavesTheOthersRunningAndFreesItsSlot() throws {
        let urls = serve(3, bytesPerSecond: 60_000)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 2, watcher: watcher)
        for url in urls { try queue.add(url) }
        #expect(queue.entry(urls[2])?.isWaiting == true)
        #expect(waitUntil(timeout: .seconds(10)) { queue.entry(urls[0])!.progress.bytesDone > 0 })
        queue.pause(urls[0])
        #expect(waitUntil(timeout: .seconds(5)) { queue.entry(urls[0])?.state == .paused })
        // Its slot went to the waiting one; the other kept running.
        #expect(waitUntil(timeout: .seconds(5)) { queue.entry(urls[2])?.state == .downloading })
        #expect(queue.entry(urls[1])?.state == .downloading || queue.entry(urls[1])?.state.completedPath != nil)
        let kept = try #require(harness.partialRecord(urls[0])?.durableBytes)
        #expect(kept > 0)

        queue.start(urls[0])
        #expect(waitUntil(timeout: .seconds(30)) { allCompleted(queue) }, "\(queue.entries)")
        #expect(watcher.maxRunning <= 2)
        #expect(server.requests(to: "/v0.webm").last?["range"] != nil, "continue did not resume")
    }

    @Test func aWaitingURLCanBePausedAndRemoved() throws {
        let urls = serve(3, bytesPerSecond: 60_000)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 1, watcher: watcher)
        for url in urls { try queue.add(url) }
        #expect(waitUntil(timeout: .seconds(5)) { queue.runningURLs == [urls[0]] })
        queue.pause(urls[1])
        #expect(queue.entry(urls[1])?.isWaiting == false)
        #expect(queue.entry(urls[1])?.state == .idle)
        #expect(!queue.remove(urls[0]), "a running download was removed")
        #expect(queue.remove(urls[2]))
        #expect(queue.entries.map(\.url) == Array(urls.prefix(2)))
        #expect(waitUntil(timeout: .seconds(30)) { queue.entry(urls[0])?.state.completedPath != nil })
        // Neither the paused nor the removed one ever asked the server.
        #expect(server.requests(to: "/v1.webm").isEmpty && server.requests(to: "/v2.webm").isEmpty)
    }

    @Test func stopAllKeepsEveryPartialReadyToContinue() throws {
        let urls = serve(3, bytesPerSecond: 40_000)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 2, watcher: watcher)
        for url in urls { try queue.add(url) }
        #expect(waitUntil(timeout: .seconds(10)) {
            queue.entries.prefix(2).allSatisfy { $0.progress.bytesDone > 0 }
        })
        let stopped = Locked(false)
        queue.stopAll { stopped.withLock { $0 = true } }
        #expect(waitUntil(timeout: .seconds(5)) { stopped.withLock { $0 } })
        #expect(queue.runningURLs.isEmpty && !queue.entries.contains(where: \.isWaiting))

        // A new queue (the next start) sees the partials, ready to continue.
        let library = Library(cache: harness.cache)
        let partials = library.reload().filter { !$0.isComplete }
        #expect(Set(partials.map(\.url)) == Set(urls.prefix(2)))
        let next = DownloadQueue(cache: harness.cache, options: DownloadHarness.quickOptions)
        for url in urls.prefix(2) {
            let entry = try next.add(url, start: false)
            #expect(entry.state == .idle)
            // Read off the caller's thread: the partial's bytes show once the cache is read.
            #expect(waitUntil(timeout: .seconds(5)) { (next.entry(url)?.progress.bytesDone ?? 0) > 0 })
            #expect(next.entry(url)?.state == .idle)
        }
    }

    @Test func aFinishedURLTakesNoSlot() throws {
        let urls = serve(2)
        #expect(try harness.download(urls[0]).completedPath != nil)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 1, watcher: watcher)
        // Until the cache is read it waits, and takes no slot; then it is complete.
        try queue.add(urls[0])
        #expect(queue.runningURLs.isEmpty)
        #expect(waitUntil(timeout: .seconds(5)) { queue.entry(urls[0])?.state.completedPath != nil })
        #expect(queue.runningURLs.isEmpty)
        // It plays from its file: a board holding it could pass for a download still arriving
        // to a window whose copy of the entry is a moment behind.
        #expect(queue.board(for: urls[0])?.current.path == nil)
        try queue.add(urls[1])
        #expect(waitUntil(timeout: .seconds(5)) { queue.runningURLs == [urls[1]] })
        #expect(waitUntil(timeout: .seconds(30)) { allCompleted(queue) })
    }

    @Test func raisingTheLimitStartsWaitingOnes() throws {
        let urls = serve(3, bytesPerSecond: 60_000)
        let watcher = Watcher()
        let queue = makeQueue(maxRunning: 1, watcher: watcher)
        for url in urls { try queue.add(url) }
        #expect(waitUntil(timeout: .seconds(5)) { queue.runningURLs.count == 1 })
        queue.maxRunning = 3
        #expect(waitUntil(timeout: .seconds(5)) { queue.runningURLs.count == 3 })
        #expect(waitUntil(timeout: .seconds(30)) { allCompleted(queue) })
    }
}

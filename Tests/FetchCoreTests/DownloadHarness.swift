@testable import FetchCore
import Foundation
import ThreadKit
import TestSupport

/// A temporary cache, a task on it with short timeouts, and every event the task sent.
final class DownloadHarness: Sendable {
    let folder: TemporaryDirectory
    let cache: Cache
    private let recorded = Locked<[DownloadQueue.Event]>([])

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-core")
        cache = try Cache(root: folder.path + "/cache")
    }

    /// Options that keep tests quick: a checkpoint at every write, fast retries, short stalls.
    static var quickOptions: DownloadOptions {
        var options = DownloadOptions()
        options.checkpointInterval = 0
        options.initialBackoff = 0.02
        options.maxBackoff = 0.1
        options.stallSeconds = 1
        options.connectTimeoutSeconds = 2
        // The machine's own yt-dlp never changes what a page link ends in.
        options.sites.looksForInstalled = false
        return options
    }

    func task(_ url: String, options: DownloadOptions = DownloadHarness.quickOptions) throws -> DownloadTask {
        try DownloadTask(url: url, cache: cache, options: options) { [self] event in
            recorded.withLock { $0.append(event) }
        }
    }

    /// Starts a task and waits for it to stop.
    func download(_ url: String, options: DownloadOptions = DownloadHarness.quickOptions) throws -> DownloadState {
        let task = try task(url, options: options)
        task.start()
        return task.wait()
    }

    /// Runs `url` with `context` to its end (with `retries` retries after an answer that
    /// brought nothing).
    func run(_ url: String, context: RequestContext?, retries: Int = 0,
             options: DownloadOptions = DownloadHarness.quickOptions) throws -> DownloadState {
        var options = options
        options.maxRetries = retries
        let task = try DownloadTask(url: url, cache: cache, options: options, context: context) { _ in }
        task.start()
        return task.wait()
    }

    /// Serves `body` at `path` so that a run with `context` leaves a partial of its first 50,000
    /// bytes (then a retry that gets nothing), with its record and context kept beside it.
    ///
    /// - Parameter link: what is downloaded (a page's video that is `path`); nil: `path` itself.
    func leavePartial(_ path: String, on server: FaultServer, body: [UInt8], context: RequestContext,
                      link: String? = nil) throws -> String {
        server.serve(path, body: body, etag: "\"c\"", faults: [.dropAfter(bytes: 50_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: path, requests: 1)
        let url = link ?? server.url(path)
        let state = try run(url, context: context)
        guard case .failed = state else { throw HarnessError("no partial left: \(state)") }
        return url
    }

    var events: [DownloadQueue.Event] { recorded.withLock { $0 } }

    var progressEvents: [DownloadProgress] {
        events.compactMap { if case .progress(let entry) = $0 { entry.progress } else { nil } }
    }

    /// The partial's data file: the one its record names, else the one on disk.
    func partialPath(_ url: String) -> String {
        let key = Cache.key(for: url)
        if let name = partialRecord(url)?.dataFile { return cache.partialDirectory + "/" + name }
        return cache.dataFiles(key: key).first ?? cache.partialPath(key, "part")
    }

    func partialRecord(_ url: String) -> DownloadRecord? {
        let key = Cache.key(for: url)
        return cache.loadRecord(at: cache.partialPath(key, "json"), key: key)
    }

    /// Whether every range the partial's record vouches for holds exactly `body`'s bytes there.
    func durableRangesMatch(_ url: String, _ body: [UInt8]) -> Bool {
        guard let record = partialRecord(url),
              let data = FileManager.default.contents(atPath: partialPath(url)) else { return false }
        let file = Array(data)
        return !record.durable.isEmpty && record.durable.ranges.allSatisfy { range in
            let span = Int(range.lowerBound)..<Int(range.upperBound)
            return span.upperBound <= file.count && span.upperBound <= body.count && file[span] == body[span]
        }
    }

    /// Every file under the cache root, relative to it.
    func filesInCache() -> [String] {
        (FileManager.default.enumerator(atPath: cache.root)?.allObjects as? [String] ?? []).sorted()
    }
}

extension DownloadState {
    var completedPath: String? {
        if case .completed(let path) = self { path } else { nil }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension DownloadQueue {
    /// Waits until `url` rests (no slot, not waiting for one) and returns its phase then, or nil
    /// when the queue does not know it; gives up after `timeout`. The queue itself has no wait:
    /// a window observes its events, and `DownloadTask.wait()` waits on them.
    func wait(for url: String, timeout: Duration = .seconds(120)) -> DownloadPhase? {
        _ = waitUntil(timeout: timeout) { entry(url).map { !$0.phase.holdsSlot && !$0.isWaiting } ?? true }
        return entry(url)?.phase
    }
}

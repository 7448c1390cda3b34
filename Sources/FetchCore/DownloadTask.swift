import Foundation
import Localization
import Locking

/// One URL's download: start, pause, continue and cancel, from any thread.
///
/// The work runs on a worker thread of its own; everything the task observes comes back as
/// `DownloadEvent`s on that thread, in order, progress at most every `progressInterval`. The
/// observer hops to its own thread (the window uses `LatestValueRelay`).
public final class DownloadTask: Sendable {
    /// The link's identity (`WebAddress.identity`): what the library, records and logs name.
    public let url: String
    /// The link as requested, with the credentials it may carry; never stored or printed.
    private let requestURL: String
    private let cache: Cache
    private let options: DownloadOptions
    private let onEvent: @Sendable (DownloadEvent) -> Void
    private let stop = StopSignal()
    private let shared: Locked<Shared>

    private struct Shared {
        var state: DownloadState
        var progress: DownloadProgress
        var workerRunning = false
        /// Start was asked for while a stopping worker was still winding down.
        var startAgain = false
        var finished: DispatchSemaphore?
    }

    /// Prepares a download of `url` into `cache`; nothing happens before `start()`.
    ///
    /// The state reflects the cache at once: `.completed` when the video is there, `.idle` with
    /// the partial's progress when part of it is.
    public init(url text: String, cache: Cache, options: DownloadOptions = .init(),
                onEvent: @escaping @Sendable (DownloadEvent) -> Void) throws(DownloadError) {
        requestURL = try WebAddress.validate(text)
        url = try WebAddress.identity(requestURL)
        self.cache = cache
        self.options = options
        self.onEvent = onEvent
        let entry = cache.entry(for: url)
        let progress = DownloadProgress(bytesDone: entry?.bytesDone ?? 0, total: entry?.total)
        let state: DownloadState = entry.map { $0.isComplete ? .completed(path: $0.path) : .idle } ?? .idle
        shared = Locked(Shared(state: state, progress: progress))
    }

    public var state: DownloadState { shared.withLock { $0.state } }
    public var progress: DownloadProgress { shared.withLock { $0.progress } }

    /// Starts or continues the download. Does nothing while it runs or once it is complete.
    ///
    /// The stop signal and the run's semaphore change under the same lock as the worker's
    /// bookkeeping, so a `pause()` from another thread can never be lost between them.
    public func start() {
        let done = shared.withLock { shared -> DispatchSemaphore? in
            if case .completed(let path) = shared.state {
                // Complete stays complete only while the file exists: one evicted or removed in
                // a file manager since is downloaded again.
                guard FileIO.size(of: path) == nil else { return nil }
                shared.state = .idle
            }
            if shared.workerRunning {
                if stop.isRaised { shared.startAgain = true }
                return nil
            }
            shared.workerRunning = true
            stop.lower()
            let done = DispatchSemaphore(value: 0)
            shared.finished = done
            return done
        }
        guard let done else { return }
        let thread = Thread { [self] in work(signalling: done) }
        thread.name = "fetchplay download"
        thread.start()
    }

    /// Stops the transfer within a second; the partial stays, ready to continue.
    public func pause() {
        shared.withLock { shared in
            shared.startAgain = false
            stop.raise()
        }
    }

    /// Stops like `pause()`; for callers that are going away (quit, SIGINT).
    public func cancel() { pause() }

    /// Blocks until the worker has stopped, and returns the state then. Never on the main thread.
    @discardableResult
    public func wait() -> DownloadState {
        let semaphore = shared.withLock { $0.finished }
        semaphore?.wait()
        semaphore?.signal()
        return state
    }

    // MARK: The worker

    /// Runs until a stopping state, and again while Continue was pressed during the stop;
    /// then signals `done`, the semaphore of this worker's own start.
    private func work(signalling done: DispatchSemaphore) {
        while true {
            let end = run()
            let again = shared.withLock { shared -> Bool in
                shared.state = end
                if shared.startAgain, end.canContinue {
                    shared.startAgain = false
                    stop.lower()
                    return true
                }
                shared.workerRunning = false
                return false
            }
            onEvent(.state(end))
            if !again { break }
        }
        done.signal()
    }

    private func publish(_ state: DownloadState) {
        shared.withLock { $0.state = state }
        onEvent(.state(state))
    }

    /// One run from start to a stopping state: attempts, retries with backoff, completion.
    private func run() -> DownloadState {
        let partial: PartialFile
        do {
            if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
            partial = try PartialFile(cache: cache, url: url, displayName: DisplayName.fromURL(url))
            // Another process may have finished it while we waited for nothing.
            if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
        } catch {
            return .failed(error)
        }
        partial.checkpointInterval = options.checkpointInterval
        publish(.downloading)
        let end = attempts(partial)
        switch end {
        case .failed(let error): partial.noteFailure(error.message)
        case .paused: partial.noteFailure(nil)
        default: break
        }
        return end
    }

    /// Requests until the download completes, fails or is stopped; retries with backoff.
    private func attempts(_ partial: PartialFile) -> DownloadState {
        var meter = SpeedMeter()
        var failures = 0
        var backoff = options.initialBackoff
        var forceFromZero = false
        var serverWasReached = false
        /// The most durable bytes seen: retries are counted only while this does not grow.
        var furthest = partial.durableBytes
        /// Where the last answer that brought no byte ended.
        var emptyAnswerAt: Int64?
        /// An extra connection was refused once: the rest of this run uses one.
        var connections = options.connections
        while true {
            let record = partial.record
            let resume = !forceFromZero && record.isResumable
            report(bytes: resume ? record.durableBytes : 0, total: record.total, meter: &meter)
            let attempt = RangeDownload(url: requestURL, partial: partial, options: options, connections: connections,
                                        stop: stop) { [self] bytes, total in report(bytes: bytes, total: total, meter: &meter) }
            let outcome = attempt.run(resume: resume)
            if attempt.slicesRefused { connections = 1 }
            switch outcome {
            case .finished(let finalURL):
                return finish(partial, finalURL: finalURL)
            case .alreadyComplete:
                return finish(partial, finalURL: nil)
            case .restartFromZero(let reason):
                Log.warning("\(url): \(reason); starting over")
                if forceFromZero { return keep(partial, .failed(.badResponse(reason))) }
                forceFromZero = true
                serverWasReached = true
            case .stopped:
                return keep(partial, .paused)
            case .sliceRefused(let reason):
                // Only a slice is refused, and the attempt goes on without it; never here.
                return keep(partial, .failed(.badResponse(reason)))
            case .failed(.notAVideo(let kind), _, _):
                partial.discardFresh()
                return .failed(.notAVideo(kind))
            case .failed(var error, let gotBytes, let answered):
                serverWasReached = serverWasReached || gotBytes
                do {
                    try partial.flush()
                } catch {
                    return .failed(error)
                }
                if partial.durableBytes > furthest {
                    furthest = partial.durableBytes
                    failures = 0
                    backoff = options.initialBackoff
                } else {
                    failures += 1
                }
                // A server that answers and then ends the body at the same byte again is not a
                // network fault: no retry will get past it.
                // (A stall is different: the server may be busy, and stalls are retried.)
                var endedAt: Int64?
                if case .connectionLost = error, answered, !gotBytes { endedAt = partial.durableBytes }
                if let endedAt, endedAt == emptyAnswerAt {
                    // TRANSLATORS: %2$@ is the announced size in bytes, or ? when unknown.
                    error = .badResponse(String(format: tr("it keeps ending the video at byte %1$lld of %2$@"),
                                                endedAt, record.total.map(String.init) ?? "?"))
                }
                emptyAnswerAt = endedAt
                guard CurlError.isTransient(error, serverWasReached: serverWasReached),
                      failures <= options.maxRetries else {
                    return .failed(error)
                }
                Log.warning("\(url): \(error.message) Retrying in \(backoff) s.")
                if stop.wait(seconds: backoff) { return keep(partial, .paused) }
                backoff = min(backoff * 2, options.maxBackoff)
                forceFromZero = false
            }
        }
    }

    /// Makes the partial durable and ends in `state` (a disk error wins over it).
    private func keep(_ partial: PartialFile, _ state: DownloadState) -> DownloadState {
        do {
            try partial.flush()
        } catch {
            return .failed(error)
        }
        return state
    }

    private func finish(_ partial: PartialFile, finalURL: String?) -> DownloadState {
        do {
            let (record, path) = try partial.complete(finalURL: finalURL)
            let progress = DownloadProgress(bytesDone: record.durableBytes, total: record.total)
            shared.withLock { $0.progress = progress }
            onEvent(.progress(progress))
            return .completed(path: path)
        } catch {
            return .failed(error)
        }
    }

    private func report(bytes: Int64, total: Int64?, meter: inout SpeedMeter) {
        meter.add(bytes: bytes, at: monotonicSeconds())
        let speed = meter.bytesPerSecond
        let left = total.flatMap { speed > 0 ? Double($0 - bytes) / speed : nil }
        let progress = DownloadProgress(bytesDone: bytes, total: total, bytesPerSecond: speed, secondsLeft: left)
        shared.withLock { $0.progress = progress }
        onEvent(.progress(progress))
    }
}

import Foundation
import Localization
import Locking

/// The thread that downloads one URL until it completes, fails or is stopped.
///
/// A worker holds nothing of the download's life: it performs the store's effects (`start`,
/// `stop`) and reports what happens as `DownloadEvent`s on its own thread, in order, progress at
/// most every `progressInterval`, its end state last. The store (`DownloadQueue`) never starts a
/// worker whose previous run has not ended (its phase says so), so one worker runs one thread at
/// a time.
final class DownloadWorker: Sendable {
    /// The link's identity (`WebAddress.identity`): what the library, records and logs name.
    let url: String
    /// The link as requested, with the credentials it may carry; never stored or printed.
    private let requestURL: String
    private let cache: Cache
    private let options: DownloadOptions
    private let stopSignal = StopSignal()
    /// What is on disk now, for a player reading while it downloads.
    let board = DownloadBoard()
    /// This download's own speed limit, all its connections together (none until set).
    let speedLimit = SpeedLimit()
    private let report: @Sendable (DownloadEvent) -> Void
    /// A request context given with the latest start, to be kept for this download; nil: the
    /// one kept with the partial (or `options.context` when none is).
    private let givenContext = Locked<RequestContext?>(nil)

    init(requestURL: String, cache: Cache, options: DownloadOptions,
         report: @escaping @Sendable (DownloadEvent) -> Void) throws(DownloadError) {
        self.requestURL = requestURL
        url = try WebAddress.identity(requestURL)
        self.cache = cache
        self.options = options
        self.report = report
    }

    /// Runs one download on a thread of its own; its end state is the last event.
    func start() {
        stopSignal.lower()
        // Readers wait for bytes from now on, not only once the partial is open.
        board.setRunning(true)
        // Quitting waits for the thread (the store stops it first).
        let job = BackgroundWork.begin()
        let thread = Thread { [self] in
            let end = run()
            board.setRunning(false)
            report(.state(end))
            job?.end()
        }
        thread.name = "fetchplay download"
        thread.start()
    }

    /// Stops the transfer within a second; the partial stays, ready to continue.
    func stop() { stopSignal.raise() }

    /// Makes `context` what the next run sends, and keeps it with the partial from then on
    /// (written by the run, off the caller's thread).
    func give(_ context: RequestContext) { givenContext.withLock { $0 = context } }

    /// One run from start to a stopping state: attempts, retries with backoff, completion.
    private func run() -> DownloadState {
        let partial: PartialFile
        var options = options
        do {
            if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
            let given = givenContext.withLock { given in defer { given = nil }; return given }
            options.context = given ?? cache.context(for: url) ?? options.context
            partial = try PartialFile(cache: cache, url: url, displayName: options.context.suggestedName ?? DisplayName.fromURL(url),
                                      board: board)
            // Another process may have finished it while we waited for nothing.
            if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
            // Kept under the partial's lock, so two processes never write it at once.
            if let given { try cache.keepContext(given, for: url) }
        } catch {
            return .failed(error)
        }
        partial.checkpointInterval = options.checkpointInterval
        report(.state(.downloading))
        let end = attempts(partial, options: options)
        switch end {
        case .failed(let error): partial.noteFailure(error.message)
        case .paused: partial.noteFailure(nil)
        default: break
        }
        return end
    }

    /// Requests until the download completes, fails or is stopped; retries with backoff.
    private func attempts(_ partial: PartialFile, options: DownloadOptions) -> DownloadState {
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
                                        limits: SpeedLimits([speedLimit, options.speedLimit]), stop: stopSignal) { [self] bytes, total in report(bytes: bytes, total: total, meter: &meter) }
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
                if stopSignal.wait(seconds: backoff) { return keep(partial, .paused) }
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
            // What the page knew is needed no longer.
            cache.forgetContext(for: url)
            report(.progress(DownloadProgress(bytesDone: record.durableBytes, total: record.total)))
            return .completed(path: path)
        } catch {
            return .failed(error)
        }
    }

    private func report(bytes: Int64, total: Int64?, meter: inout SpeedMeter) {
        meter.add(bytes: bytes, at: monotonicSeconds())
        let speed = meter.bytesPerSecond
        let left = total.flatMap { speed > 0 ? Double($0 - bytes) / speed : nil }
        report(.progress(DownloadProgress(bytesDone: bytes, total: total, bytesPerSecond: speed, secondsLeft: left)))
    }
}

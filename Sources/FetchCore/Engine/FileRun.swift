import Foundation
import Localization
import ThreadKit

/// One run of a file's download on the caller's thread, from its partial's lock to a stopping
/// state: attempts, retries with backoff, completion.
///
/// A download's worker runs one for a `.file` (a presentation's segments go through
/// `PieceFetch` into their store instead).
struct FileRun {
    /// How a run ended: a state, or an answer that is a playlist or a manifest (which the worker
    /// saves as a presentation in the same run; a segment that is one is refused).
    enum End: Equatable {
        case state(DownloadState)
        case presentation(DocumentKind)
    }

    /// The link's identity (`WebAddress.identity`): what the library, records and logs name.
    let url: String
    /// The link as requested, with the credentials it may carry; never stored or printed.
    let requestURL: String
    let cache: Cache
    let options: DownloadOptions
    /// What is on disk now, for a player reading while it downloads.
    let board: DownloadBoard
    let limits: SpeedLimits
    let stop: StopSignal
    let report: @Sendable (DownloadEvent) -> Void

    /// - Parameter given: a context to send and keep with the partial from now on; nil: the one
    ///   kept with the partial, else `options.context`.
    func run(given: RequestContext? = nil) -> End {
        let partial: PartialFile
        var options = options
        do {
            if let entry = cache.entry(for: url), entry.isComplete { return .state(.completed(path: entry.path)) }
            options.context = given ?? cache.context(for: url) ?? options.context
            partial = try PartialFile(cache: cache, url: url, displayName: options.context.suggestedName ?? DisplayName.fromURL(url),
                                      board: board)
            // Another process may have finished it while we waited for nothing.
            if let entry = cache.entry(for: url), entry.isComplete { return .state(.completed(path: entry.path)) }
            // Kept under the partial's lock, so two processes never write it at once.
            if let given { try cache.keepContext(given, for: url) }
        } catch {
            return .state(.failed(error))
        }
        partial.checkpointInterval = options.checkpointInterval
        report(.state(.downloading))
        let end = attempts(partial, options: options)
        switch end {
        case .state(.failed(let error)): partial.noteFailure(error.message)
        case .state(.paused): partial.noteFailure(nil)
        default: break
        }
        return end
    }

    /// Requests until the download completes, fails or is stopped; retries with backoff.
    private func attempts(_ partial: PartialFile, options: DownloadOptions) -> End {
        let meter = SpeedMeter()
        var failures = 0
        var backoff = Backoff(options)
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
            report(bytes: resume ? record.durableBytes : 0, total: record.total, meter: meter)
            let attempt = RangeDownload(url: requestURL, partial: partial, options: options, connections: connections,
                                        limits: limits, meter: meter, stop: stop) { bytes, total in
                report(bytes: bytes, total: total, meter: meter)
            }
            let outcome = attempt.run(resume: resume)
            if attempt.slicesRefused { connections = 1 }
            switch outcome {
            case .finished(let finalURL):
                return .state(finish(partial, finalURL: finalURL))
            case .alreadyComplete:
                return .state(finish(partial, finalURL: nil))
            case .restartFromZero(let reason):
                Log.warning("\(url): \(reason); starting over")
                if forceFromZero { return .state(keep(partial, .failed(.badResponse(reason)))) }
                forceFromZero = true
                serverWasReached = true
            case .stopped:
                return .state(keep(partial, .paused))
            case .sliceRefused(let reason):
                // Only a slice is refused, and the attempt goes on without it; never here.
                return .state(keep(partial, .failed(.badResponse(reason))))
            case .failed(.notAVideo(let kind), _, _):
                partial.discardFresh()
                if kind == .playlist || kind == .manifest { return .presentation(kind) }
                // Nothing of a document stays, its context neither (a playlist's goes on with it).
                if partial.durableBytes == 0 { cache.forgetContext(for: url) }
                return .state(.failed(.notAVideo(kind)))
            case .failed(var error, let gotBytes, let answered):
                serverWasReached = serverWasReached || gotBytes
                do {
                    try partial.flush()
                } catch {
                    return .state(.failed(error))
                }
                if partial.durableBytes > furthest {
                    furthest = partial.durableBytes
                    failures = 0
                    backoff.reset()
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
                    return .state(.failed(error))
                }
                Log.warning("\(url): \(error.message) Retrying in \(backoff.seconds) s.")
                if backoff.wait(on: stop) { return .state(keep(partial, .paused)) }
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
        } catch .notAVideo(let kind) {
            // First bytes a pause kept, judged at the end: nothing of a document stays.
            partial.discardFresh()
            return .failed(.notAVideo(kind))
        } catch {
            return .failed(error)
        }
    }

    private func report(bytes: Int64, total: Int64?, meter: SpeedMeter) {
        meter.add(bytes: bytes, at: monotonicSeconds())
        let speed = meter.bytesPerSecond
        let left = total.flatMap { speed > 0 ? Double($0 - bytes) / speed : nil }
        report(.progress(DownloadProgress(bytesDone: bytes, total: total, bytesPerSecond: speed, secondsLeft: left)))
    }
}

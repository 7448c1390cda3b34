import Foundation
import Locking

/// The thread that downloads one URL, of any kind, until it completes, fails or is stopped.
///
/// A worker holds nothing of the download's life: it performs the store's effects (`start`,
/// `stop`) and reports what happens as `DownloadEvent`s on its own thread, in order, progress at
/// most every `progressInterval`, its end state last. The store (`DownloadQueue`) never starts a
/// worker whose previous run has not ended (its phase says so), so one worker runs one thread at
/// a time. What it runs depends on its kind: a file's attempts (`FileRun`), or a presentation's
/// playlists and segments (`PresentationRun`); a file whose answer is a playlist becomes a
/// presentation within the same run, in the same slot.
final class DownloadWorker: Sendable {
    /// The link's identity (`WebAddress.identity`): what the library, records and logs name.
    let url: String
    /// The link as requested, with the credentials it may carry; never stored or printed.
    private let requestURL: String
    private let cache: Cache
    private let options: DownloadOptions
    private let stopSignal = StopSignal()
    /// What is on disk now, for a player reading while it downloads (a file's bytes).
    let board = DownloadBoard()
    /// This download's own speed limit, all its connections together (none until set).
    let speedLimit = SpeedLimit()
    private let report: @Sendable (DownloadEvent) -> Void
    /// A request context given with the latest start, to be kept for this download; nil: the
    /// one kept with the partial (or `options.context` when none is). A private one is never
    /// written to the cache, so it stays here for the worker's life: Continue in the same
    /// session sends it again; after a quit only the browser can give it back.
    private let givenContext = Locked<RequestContext?>(nil)
    /// What it saves; nil until a run (or a choice) says, from the link and the cache.
    private let chosenKind: Locked<DownloadKind?>
    /// The thread of the latest run, owned here and in the process's shutdown (`.downloads`):
    /// quitting joins it after the store stopped it; one that ended is joined by the reaper.
    private let runner = Locked<Worker?>(nil)

    init(requestURL: String, cache: Cache, options: DownloadOptions, kind: DownloadKind? = nil,
         report: @escaping @Sendable (DownloadEvent) -> Void) throws(DownloadError) {
        self.requestURL = requestURL
        url = try WebAddress.identity(requestURL)
        self.cache = cache
        self.options = options
        self.report = report
        chosenKind = Locked(kind)
    }

    /// What it saves, as far as known: a presentation once chosen, guessed from its link, or
    /// found by its answer.
    var kind: DownloadKind? { chosenKind.withLock { $0 } }

    /// Makes the next run save a presentation's `choice` (a variant a person chose).
    func choose(_ choice: PresentationChoice) { chosenKind.withLock { $0 = .presentation(choice) } }

    /// Runs one download on a thread of its own; its end state is the last event.
    func start() {
        stopSignal.lower()
        // Readers wait for bytes from now on, not only once the partial is open.
        board.setRunning(true)
        let worker = Worker.run(name: "fetchplay download", stage: .downloads) { [self] in
            let end = run()
            board.setRunning(false)
            report(.state(end))
        }
        runner.withLock { $0 = worker }
    }

    /// Stops the transfer within a second; the partial stays, ready to continue.
    func stop() { stopSignal.raise() }

    /// Makes `context` what the next run sends, and keeps it with the partial from then on
    /// (written by the run, off the caller's thread).
    func give(_ context: RequestContext) { givenContext.withLock { $0 = context } }

    /// One run from start to a stopping state, of whichever kind it is.
    private func run() -> DownloadState {
        let given = givenContext.withLock { given in
            defer { if given?.isPrivate != true { given = nil } }
            return given
        }
        let kind = chosenKind.withLock { kind in
            if kind == nil { kind = DownloadKind.guess(requestURL: requestURL, url: url, cache: cache) }
            return kind!
        }
        let limits = SpeedLimits([speedLimit, options.speedLimit])
        var options = options
        if let ceiling = options.connectionCeiling { options.connections = ceiling.connections }
        if case .presentation(let choice) = kind {
            return presentation(choice, given: given, limits: limits, options: options)
        }
        let file = FileRun(url: url, requestURL: requestURL, cache: cache, options: options, board: board, limits: limits,
                           stop: stopSignal, report: report)
        switch file.run(given: given) {
        case .state(let end):
            return end
        case .presentation:
            // Known as a playlist or a manifest only by its answer: saved as one from here on,
            // in the same slot, with the context this run was given.
            chosenKind.withLock { $0 = .presentation(PresentationChoice()) }
            return presentation(PresentationChoice(), given: given, limits: limits, options: options)
        }
    }

    private func presentation(_ choice: PresentationChoice, given: RequestContext?, limits: SpeedLimits,
                              options: DownloadOptions) -> DownloadState {
        var choice = choice
        if choice.quality == nil { choice.quality = options.presentations.quality }
        let run = PresentationRun(url: url, requestURL: requestURL, cache: cache, options: options, choice: choice,
                                  limits: limits, stop: stopSignal, report: report)
        return run.run(given: given)
    }
}

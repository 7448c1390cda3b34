import Foundation
import ThreadKit

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
    let cache: Cache
    private let options: DownloadOptions
    let stopSignal = StopSignal()
    /// What is on disk now, for a player reading while it downloads (a file's bytes).
    let board = DownloadBoard()
    /// This download's own speed limit, all its connections together (none until set).
    let speedLimit = SpeedLimit()
    let report: @Sendable (DownloadEvent) -> Void
    /// A request context given with the latest start, to be kept for this download; nil: the
    /// one kept with the partial (or `options.context` when none is). A private one is never
    /// written to the cache, so it stays here for the worker's life: Continue in the same
    /// session sends it again; after a quit only the browser can give it back.
    let givenContext = Locked<RequestContext?>(nil)
    /// What it saves; nil until a run (or a choice) says, from the link and the cache.
    let chosenKind: Locked<DownloadKind?>
    /// The thread of the latest run, owned here and in the process's shutdown (`.downloads`):
    /// quitting joins it after the store stopped it; one that ended is joined by the reaper.
    private let runner = Locked<Worker?>(nil)
    /// What its page offered when the last run ended in `.severalVideos`, for a chooser.
    private let offered = Locked<PageFinding?>(nil)

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

    /// The videos its page offered, when its last run found several (and so saved none).
    var offeredVideos: PageFinding? { offered.withLock { $0 } }

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
        let limits = SpeedLimits([speedLimit, options.speedLimit])
        var options = options
        if let ceiling = options.connectionCeiling { options.connections = ceiling.connections }
        if options.sites.scratch == nil { options.sites.scratch = cache.sitesDirectory }
        // Read before the first run, which forgets the context of a link that is a page.
        let context = given ?? cache.context(for: url) ?? options.context
        // The chooser's switch, kept with the partial: every kind of run reads it from the options.
        if context.audioOnly == true { options.audioOnly = true }
        if context.page != nil || WebAddress.pageVideo(of: url) != nil {
            return pageRun(context: context, limits: limits, options: options)
        }
        let end = media(requestURL, given: given, limits: limits, options: options)
        // A web page, or an XML document (a feed, which site support reads as a playlist).
        guard case .failed(.notAVideo(let document)) = end, document == .webPage || document == .xml else { return end }
        return pageRun(context: context, limits: limits, options: options)
    }

    /// Saves what `link` answers with: a file, or an HLS or DASH presentation (by the link, the
    /// cache, a choice, or the answer).
    func media(_ link: String, given: RequestContext?, limits: SpeedLimits, options: DownloadOptions,
                       rereadPlaylist: Bool = false) -> DownloadState {
        let kind = chosenKind.withLock { kind in
            if kind == nil { kind = DownloadKind.guess(requestURL: link, url: url, cache: cache) }
            return kind!
        }
        if case .presentation(let choice) = kind {
            return presentation(choice, link: link, given: given, limits: limits, options: options, rereadPlaylist: rereadPlaylist)
        }
        let file = FileRun(url: url, requestURL: link, cache: cache, options: options, board: board, limits: limits,
                           stop: stopSignal, report: report)
        let finishedBefore = options.audioOnly && cache.entry(for: url)?.isComplete == true
        switch file.run(given: given) {
        case .state(let end):
            return keepingAudioOnly(end, finishedBefore: finishedBefore, options: options)
        case .presentation:
            // Known as a playlist or a manifest only by its answer: saved as one from here on,
            // in the same slot, with the context this run was given.
            chosenKind.withLock { $0 = .presentation(PresentationChoice()) }
            return presentation(PresentationChoice(), link: link, given: given, limits: limits, options: options)
        }
    }

    /// Statuses of a media link that died (an expired or revoked token), which reading its page
    /// again may cure.
    static let deadLink: Set<Int> = [401, 403, 404, 410]
    /// Fresh links one failure may take from the page before its error stands.
    static let maxRefreshes = 2

    /// A download found on a web page (`url` is the page, or `PAGE#video-N`): the page read for
    /// its video unless the kept context names it, then its media saved under the page's
    /// identity and name. When the media link dies, the page is read again for the same video
    /// (`PageSource.again`) and the download goes on with its fresh link, from the bytes on
    /// disk when the new answer agrees with them (the resume table), else from the start.
    private func pageRun(context: RequestContext, limits: SpeedLimits, options: DownloadOptions) -> DownloadState {
        var options = options
        // The person gave the page: the secrets they gave by hand belong to its host.
        options.origin = requestURL
        var context = context
        var siteAnswer: SiteMedia?
        if context.page == nil {
            switch readPage(with: context, options: options) {
            case .success(let found): (context, siteAnswer) = found
            case .failure(let halt): return halt.state
            }
        }
        // Its name from the page, also after a restart (the kept context has it).
        if let name = context.suggestedName { report(.named(name)) }
        var refreshes = 0
        var reread = false
        while true {
            guard let source = context.page else { return .failed(.notAVideo(.webPage)) }
            // What site support read: it finds the media again itself when a link dies.
            if source.kind == .site { return siteRun(context: context, answer: siteAnswer, limits: limits, options: options) }
            if source.kind == .stream { chosenKind.withLock { if $0 == nil || $0 == .file { $0 = .presentation(PresentationChoice()) } } }
            // A private context is kept by this worker alone, with its page, for the next run.
            if context.isPrivate { givenContext.withLock { $0 = context } }
            options.readOverHTTPS = source.servedOverHTTPS == true
            let end = media(source.media, given: context, limits: limits, options: options, rereadPlaylist: reread)
            if case .completed(let video) = end, let picture = source.picture {
                // The page's poster, with the page's context (the person gave the page).
                keepPicture(picture, of: video, context: context, origin: requestURL, options: options)
            }
            guard case .failed(.httpStatus(let code, _)) = end, Self.deadLink.contains(code),
                  refreshes < Self.maxRefreshes, !stopSignal.isRaised else { return end }
            refreshes += 1
            guard case .success(let found) = readPage(with: context, options: options),
                  found.context.page?.media != source.media else { return end }
            (context, siteAnswer) = found
            reread = true
            report(.linkRefreshed)
        }
    }

    /// The page read for this download's video: the context its media is fetched with (the
    /// page's cookies joined, the page as Referer), whose `page` is the video: the one the kept
    /// context named (found again), else the one `url` names, else the page's only one.
    private func readPage(with context: RequestContext,
                          options: DownloadOptions) -> Result<(context: RequestContext, site: SiteMedia?), RunHalt> {
        var asked = context
        asked.page = nil
        let finding: PageFinding
        do throws(RunHalt) {
            finding = try PageReader.read(requestURL, context: asked, options: options, stop: stopSignal)
        } catch {
            return .failure(error)
        }
        let count = finding.videos.count
        let source: PageSource
        if let known = context.page {
            guard let again = known.again(in: finding) else { return .failure(.failed(.notOnPage(number: known.number, count: count))) }
            source = again
        } else {
            guard count > 0 else { return .failure(.failed(finding.siteFailure ?? .notAVideo(.webPage))) }
            let number = WebAddress.pageVideo(of: url)
            if number == nil, count > 1 {
                offered.withLock { $0 = finding }
                return .failure(.failed(.severalVideos(count)))
            }
            let chosen = number ?? 1
            guard chosen <= count else { return .failure(.failed(.notOnPage(number: chosen, count: count))) }
            source = PageSource(finding, number: chosen)
        }
        var found = finding.context
        found.page = source
        // Named after the page once; a refresh keeps the name it has.
        found.suggestedName = context.page == nil ? finding.name(of: source.number - 1) : context.suggestedName
        found.site = context.site
        // The chooser's wish stays with the video's context, kept with its partial.
        found.audioOnly = context.audioOnly
        return .success((found, finding.site))
    }

    func presentation(_ choice: PresentationChoice, link: String, given: RequestContext?, limits: SpeedLimits,
                              options: DownloadOptions, rereadPlaylist: Bool = false) -> DownloadState {
        var choice = choice
        if choice.quality == nil { choice.quality = options.presentations.quality }
        if options.audioOnly { choice.audioOnly = true }
        var run = PresentationRun(url: url, requestURL: link, cache: cache, options: options, choice: choice,
                                  limits: limits, board: board, stop: stopSignal, report: report)
        run.rereadsPlaylist = rereadPlaylist
        return run.run(given: given)
    }
}

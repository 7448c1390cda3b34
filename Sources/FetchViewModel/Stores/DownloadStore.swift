import FetchCore
import Foundation
import GLibSupport
import ThreadKit

/// The one store the window reads, on the main thread: every download by URL (the queue's
/// entries), every video by URL (the library's items), the selected download, and the commands
/// that change them.
///
/// The queue (FetchCore) reports its events on worker threads, in order. They wait in an inbox
/// with at most one main-loop callback pending, which takes them all: none is lost or reordered,
/// and only progress is coalesced (a URL's newest replaces its last one still waiting). A
/// finished download joins the videos from the item its end carries (the folder is not read
/// again); one that stopped otherwise has the folder read anew. Observers (the page, the rows,
/// the notifications) hear once per main-loop update, on the main thread, which URLs changed,
/// whether the selected download did, and which runs ended; and after every change of the
/// videos (DownloadStore+Library.swift).
@MainActor
public final class DownloadStore {
    public let cache: Cache
    public let queue: DownloadQueue
    /// The selected download, which the big ring, the buttons and the library's row show.
    public private(set) var url: String?
    public var state: DownloadState { selected?.state ?? .idle }
    public var progress: DownloadProgress? { selected?.progress }
    /// The selected download waits for a free slot.
    public var isWaiting: Bool { selected?.isWaiting ?? false }
    private var selected: DownloadQueue.Entry? { url.flatMap { entries[$0] } }
    /// Every download the queue knows, by URL, as of the last main-loop update.
    public private(set) var entries: [String: DownloadQueue.Entry] = [:]
    /// The URLs of `entries` in the order they joined the queue.
    private var joined: [String] = []
    /// What one update changed.
    public struct Change: Sendable {
        /// URLs whose queue entries changed (or left the queue).
        public var urls: Set<String> = []
        /// The selected download changed, or another one was selected.
        public var selection = false
        /// Downloads whose run here finished or failed (`DownloadQueue.Event.ended`).
        public var ended: Set<String> = []
        /// The videos changed (read, added, deleted, undone, probed).
        public var videos = false
    }

    let observers = Observers<Change>()

    /// Calls `body` after every change, for the store's lifetime.
    public func observe(_ body: @escaping @MainActor (Change) -> Void) { observers.add(body) }

    /// The window: it asks a person which variant or which of a page's videos to save, and
    /// says which file plays. Unset: the best variant, unasked; a page offering several stays
    /// failed; nothing plays.
    public weak var host: (any DownloadStoreHost)?

    private var whenStopped: [@MainActor () -> Void] = []
    /// Presentation links whose master is being read, or whose variant is being chosen.
    private var choosing: Set<String> = []
    /// Presentation links whose variant was settled here (chosen, or nothing to choose): they
    /// start and continue unasked.
    private var settled: Set<String> = []
    /// Raised when the store stops: a master still being read ends there.
    private let variantReads = StopSignal()
    /// The workers reading a link's variants, until their answer is in.
    private var variantReaders: [String: Worker] = [:]
    /// Contexts given here, by URL: the window says what the selected download carries, and a
    /// master's variants are read with it.
    private var contexts: [String: RequestContext] = [:]
    /// The queue's events on their way to the main thread, and whether a callback will take them.
    private let inbox = Locked<(events: [DownloadQueue.Event], posted: Bool)>(([], false))
    /// The speed limit every download here shares, all connections together (the Preferences'
    /// one); set its rate at any time, running downloads follow at once.
    public let speedLimit: SpeedLimit
    /// The proxy every download here goes through unless its context names one (the
    /// Preferences' one); set it at any time, the next request follows.
    public let proxy: ProxyPreference
    /// Downloads that run at once (the Preferences' setting); raising it starts waiting ones.
    public var maxRunning: Int {
        get { queue.maxRunning }
        set { if newValue != queue.maxRunning { queue.maxRunning = newValue } }
    }
    /// The most connections one download opens (the Preferences' setting); set it at any time,
    /// the next run follows.
    public let connections = ConnectionCeiling()
    private let options: DownloadOptions

    // The videos (DownloadStore+Library.swift).
    public let library: Library
    /// Every video and partial the cache holds, newest first, as last read or changed here.
    public internal(set) var items: [LibraryItem] = [] {
        didSet { positions = Dictionary(items.enumerated().map { ($1.url, $0) }, uniquingKeysWith: { first, _ in first }) }
    }
    /// Where each URL is in `items`: a big library is looked up by URL at every change.
    var positions: [String: Int] = [:]
    /// The last deletion (one video, or several selected together), while it can be undone.
    public internal(set) var pendingDeletions: [Deletion] = []
    /// True while the folder is read; the items so far arrive in batches.
    public internal(set) var isLoading = false
    public var settings: LibrarySettings
    /// The library's reads and writes, off the main thread, in the order asked.
    let disk = Worker(name: "fetchplay library", stage: .records)
    /// Raised by each reading of the folder or change that a reading in flight must not undo.
    var generation = 0
    var notificationPending = false

    /// - Parameters:
    ///   - maxRunning: downloads that run at once (the setting); the rest wait in order.
    ///   - presentations: how HLS and DASH links are saved (the window hands in GStreamer's
    ///     remux; this module imports no GStreamer).
    ///   - settings: the library's size cap.
    public init(cache: Cache, maxRunning: Int = 3, presentations: PresentationSaving = PresentationSaving(),
                settings: LibrarySettings = LibrarySettings()) {
        self.cache = cache
        library = Library(cache: cache)
        self.settings = settings
        // The queue holds this closure for its whole life; it must not keep the store alive.
        let owner = Weak<DownloadStore>(), inbox = inbox
        var options = DownloadOptions()
        speedLimit = SpeedLimit()
        options.speedLimit = speedLimit
        proxy = ProxyPreference(.desktop)
        options.proxy = proxy
        options.connectionCeiling = connections
        // HLS and DASH links are downloads of the same queue.
        options.presentations = presentations
        self.options = options
        queue = DownloadQueue(cache: cache, maxRunning: maxRunning, options: options) { event in
            let post = inbox.withLock { inbox -> Bool in
                if case .progress = event, let last = inbox.events.lastIndex(where: { $0.url == event.url }),
                   case .progress = inbox.events[last] {
                    inbox.events[last] = event
                } else {
                    inbox.events.append(event)
                }
                defer { inbox.posted = true }
                return !inbox.posted
            }
            if post { MainContext.post { owner.object?.update() } }
        }
        owner.object = self
        // Deletions nobody undid before the last quit or crash go now, and leftovers of older
        // versions (unheld locks, abandoned temporary files, orphaned request contexts).
        let library = library
        disk.submit {
            library.purgeTrash()
            library.cache.tidyLeftovers()
        }
        reload()
    }

    /// True when bytes are on disk that Continue would build on.
    public var hasPartial: Bool {
        if case .completed = state { return false }
        return (progress?.bytesDone ?? 0) > 0
    }

    /// Makes `text`'s URL the selected download, adding it to the queue without starting it; shows
    /// what the cache holds for it. Other downloads keep running.
    ///
    /// - Throws: `.invalidURL` / `.unsupportedScheme` when the text is not an http(s) URL.
    public func load(_ text: String) throws(DownloadError) {
        let entry = try queue.add(text, start: false)
        keep(entry)
        url = entry.url
        observers.notify(Change(selection: true))
    }

    /// Selects a download the library lists (it joins the queue, not started).
    public func select(url: String) {
        guard url != self.url else { return }
        try? load(url)
    }

    /// Nothing selected (the selected video was deleted).
    public func clearSelection() {
        url = nil
        observers.notify(Change(selection: true))
    }

    /// Starts or continues the selected download (a retry after a failure); it waits when every
    /// slot is taken.
    public func start() {
        guard let url else { return }
        start(url: url)
    }

    /// Pauses the selected download; the partial stays. The state follows when the worker stops.
    public func pause() {
        guard let url else { return }
        pause(url: url)
    }

    private func pause(url: String) { queue.pause(url) }

    /// Selects `text` and downloads it with `context` (a pasted link's Request section, the
    /// browser's hand-off), which its requests carry from now on and its partial keeps.
    public func start(_ text: String, context: RequestContext) throws(DownloadError) {
        let entry = try queue.add(text, context: context, start: false)
        contexts[entry.url] = context
        try load(entry.url)
        start(url: entry.url)
    }

    /// The name people see for `url`: its web page's, else the one the browser suggested, else
    /// the link's own.
    public func title(for url: String) -> String {
        entries[url]?.name ?? contexts[url]?.suggestedName ?? LinkTitle.of(url)
    }

    /// What the selected download was given to send, as the window may say it (no value).
    public var contextSummary: String? {
        guard let url, let context = contexts[url], !context.isEmpty else { return nil }
        return context.shownSummary
    }

    /// Starts or continues `url` (joining the queue if new). A new HLS or DASH link's variants
    /// are offered first; one known as a presentation only by its answer is saved in its best
    /// variant (the queue finds out in the same run).
    public func start(url: String) {
        if queue.entry(url) == nil { _ = try? queue.add(url, start: false) }
        if host != nil, queue.isPresentation(url), !settled.contains(url) { return offerVariants(url) }
        queue.start(url)
        update()
    }

    /// Starts a presentation once its variant is settled: `variant`, or nil for the one its
    /// link gives (a media playlist, a presentation begun before, one that could not be read),
    /// with `audioOnly`, its audio alone.
    private func startPresentation(_ url: String, variant: StreamVariant?, audioOnly: Bool = false) {
        settled.insert(url)
        let choice = variant != nil || audioOnly ? PresentationChoice(variant: variant, audioOnly: audioOnly) : nil
        _ = try? queue.add(url, choice: choice, start: false)
        start(url: url)
    }

    /// Reads `url`'s master playlist off the main thread and, when it has several variants, asks
    /// which to save; a media playlist, or one the network could not read, starts at once (its
    /// errors then come the download's way). A link begun before (its presentation in the
    /// cache) or already saved continues unasked.
    private func offerVariants(_ url: String) {
        guard choosing.insert(url).inserted else { return }
        let cache = cache, stop = variantReads
        var options = options
        if let context = contexts[url] { options.context = context }
        // Its own worker, held until the answer is in, and joined with the downloads at quit;
        // stopping the store ends the read.
        variantReaders[url] = Worker.run(name: "fetchplay variants", stage: .downloads, .skippable) { [options] in
            let begun = cache.hasPresentation(for: url) || cache.entry(for: url)?.isComplete == true
            let variants = begun ? [] : (try? StreamLink.variants(at: url, options: options, stop: stop)) ?? []
            guard !stop.isRaised else { return }
            MainContext.post { [weak self] in
                self?.variantReaders[url] = nil
                self?.variantsRead(variants, url: url)
            }
        }
    }

    private func variantsRead(_ variants: [StreamVariant], url: String) {
        guard variants.count > 1, let host else {
            choosing.remove(url)
            return startPresentation(url, variant: variants.first)
        }
        host.chooseVariant(url: url, variants: variants) { [weak self] chosen, audioOnly in
            self?.choosing.remove(url)
            guard let chosen else { return }
            self?.startPresentation(url, variant: chosen, audioOnly: audioOnly)
        }
    }

    /// Asks which of the videos the page at `url` offers to save (its download found several);
    /// each chosen one starts as `PAGE#video-N` with the page's context, the first selected,
    /// and the page's own entry leaves the queue.
    private func offerPageVideos(_ url: String) {
        guard let host, let finding = queue.offeredVideos(url), choosing.insert(url).inserted else { return }
        host.choosePageVideos(finding) { [weak self] chosen, audioOnly in
            self?.choosing.remove(url)
            self?.startPageVideos(chosen, of: url, audioOnly: audioOnly)
        }
    }

    /// Starts each chosen video of `page` with the page's context; `audioOnly` rides in it, so
    /// it is kept with each partial and a continue after a quit saves the audio alone too.
    private func startPageVideos(_ numbers: [Int], of page: String, audioOnly: Bool) {
        guard !numbers.isEmpty else { return }
        var context = contexts[page] ?? RequestContext()
        if audioOnly { context.audioOnly = true }
        let links = numbers.map { WebAddress.pageVideo($0, on: page) }
        for link in links { try? start(link, context: context) }
        _ = queue.remove(page)
        if let first = links.first { select(url: first) }
        contexts[page] = nil
        update()
    }

    /// Forgets `url`'s download (to delete its files), at once; refused (false) while its worker runs.
    public func remove(url: String) -> Bool {
        guard queue.remove(url) else { return false }
        forget(url)
        update()
        return true
    }

    /// Pauses `url` if it runs or waits, else continues it: a library row's button.
    public func toggle(url: String) {
        let entry = entries[url] ?? queue.entry(url)
        if entry?.state == .downloading || entry?.isWaiting == true { pause(url: url) } else { start(url: url) }
    }

    /// True while the selected download's worker may still be writing.
    public var isRunning: Bool { state == .downloading }

    /// True while any download's worker may still be writing.
    public var isAnyRunning: Bool { !runningURLs.isEmpty }

    /// URLs whose workers may still be writing.
    public var runningURLs: Set<String> { queue.runningURLs }

    /// Stops every download for good (window closing) and calls `done` once all workers stopped;
    /// the partials stay, ready to continue next time.
    public func stop(then done: @escaping @MainActor () -> Void) {
        variantReads.raise()
        guard isAnyRunning else { return done() }
        whenStopped.append(done)
        queue.stopAll { MainContext.post { [weak self] in self?.update() } }
    }

    /// Every download here, in the order they joined the queue.
    var orderedEntries: [DownloadQueue.Entry] { joined.compactMap { entries[$0] } }

    private func keep(_ entry: DownloadQueue.Entry) {
        if entries.updateValue(entry, forKey: entry.url) == nil { joined.append(entry.url) }
    }

    private func forget(_ url: String) {
        guard entries.removeValue(forKey: url) != nil else { return }
        joined.removeAll { $0 == url }
    }

    /// Takes the queue's events waiting in the inbox; lists a finished video, reads the folder
    /// again for one that stopped otherwise; tells the observers what changed. A command calls
    /// it at once, so what it changed shows before the loop turns.
    private func update() {
        let events = inbox.withLock { inbox in
            defer { inbox = ([], false) }
            return inbox.events
        }
        var changed = Set<String>(), ended = Set<String>(), finished: [String: LibraryItem] = [:]
        for event in events {
            changed.insert(event.url)
            if let entry = event.entry { keep(entry) } else { forget(event.url) }
            if case .ended(_, let item) = event { ended.insert(event.url); finished[event.url] = item }
            if case .removed(let url) = event { ended.remove(url); finished[url] = nil }
        }
        // The selected one as it is now, also when another thread is handing over its events.
        if let url, let entry = queue.entry(url) { keep(entry) }
        if !whenStopped.isEmpty, !isAnyRunning {
            let waiting = whenStopped
            whenStopped = []
            waiting.forEach { $0() }
        }
        guard !changed.isEmpty else { return }
        for item in finished.values { reload(adding: item) }
        let stopped = changed.contains { url in
            guard finished[url] == nil, let entry = entries[url] else { return false }
            return entry.state != .downloading && !entry.isWaiting
                && (item(url: url)?.isComplete != entry.state.isCompleted || item(url: url) == nil)
        }
        if stopped { reload() }
        observers.notify(Change(urls: changed, selection: url.map(changed.contains) ?? false, ended: ended))
        for url in ended {
            if case .failed(.severalVideos) = entries[url]?.state { offerPageVideos(url) }
        }
    }
}

/// What the store asks of the window (`DownloadStore.host`).
@MainActor
public protocol DownloadStoreHost: AnyObject {
    /// Asks a person which variant of a new HLS or DASH link to save, calling `done` with it, or
    /// with nil to start nothing, and whether only its audio is saved.
    func chooseVariant(url: String, variants: [StreamVariant], done: @escaping @MainActor (StreamVariant?, _ audioOnly: Bool) -> Void)
    /// Asks a person which of the videos a web page offers to save, calling `done` with their
    /// numbers (from 1), or with none to start nothing, and whether only their audio is saved.
    func choosePageVideos(_ finding: PageFinding, done: @escaping @MainActor ([Int], _ audioOnly: Bool) -> Void)
    /// The file open in the player, if any: never deleted nor evicted.
    var playingPath: String? { get }
}

extension DownloadState {
    public var isCompleted: Bool { completedPath != nil }

    /// The finished video's file.
    public var completedPath: String? {
        if case .completed(let path) = self { path } else { nil }
    }
}

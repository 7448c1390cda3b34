import Foundation
import ThreadKit

/// The store of downloads: every URL's phase, changed only by `DownloadLife.reduce`, and the one
/// rule it adds: at most `maxRunning` workers hold a slot, the others wait in line, first come
/// first served (Continue during a stop goes to the front).
///
/// Workers perform the effects the reducer asks for and report events; nothing else keeps a
/// download's state, so the window, the library rows and the command line all hear it from here,
/// as one stream of `Event`s: made under the store's lock in the order things happened, and
/// handed to `onEvent` in that order, one at a time, on whichever thread changed something (a
/// worker, the caller, or the store's disk queue). A window hops to its main thread with them.
///
/// The store never reads the disk on the caller's thread (a window's main thread does no disk
/// I/O): what the cache holds for a new URL is read on a queue of its own, and until then the URL
/// shows as idle (or waiting, when started) and takes no slot, so a finished video never runs.
/// A `DownloadTask`'s store, never on a main thread, reads at once instead.
public final class DownloadQueue: Sendable {
    /// One URL in the store, as it stands now.
    public struct Entry: Sendable, Equatable {
        public var url: String
        public var phase: DownloadPhase
        public var progress: DownloadProgress
        /// How many times its media link was found again on its page (`DownloadEvent.linkRefreshed`).
        public var refreshes = 0
        /// Its name from its web page (`DownloadEvent.named`); nil for a link that is the media.
        public var name: String?

        /// What people see: `.downloading` from the moment it takes a slot until its worker ends.
        public var state: DownloadState { phase.state }
        /// Waiting for a free slot (its state is then `.idle`, `.paused` or `.failed`).
        public var isWaiting: Bool { phase.isWaiting }

        public init(url: String, phase: DownloadPhase, progress: DownloadProgress) {
            self.url = url
            self.phase = phase
            self.progress = progress
        }

        /// An entry as people see it (for tests and previews): the phase that shows `state`.
        public init(url: String, state: DownloadState, progress: DownloadProgress, isWaiting: Bool) {
            let phase = DownloadPhase(ended: state)
            self.init(url: url, phase: isWaiting ? phase.resting.map { .waiting(resting: $0) } ?? phase : phase,
                      progress: progress)
        }
    }

    /// What changed, each with the URL's entry as it was then.
    public enum Event: Sendable, Equatable {
        /// The URL joined the store (what the cache holds for it may follow as `.changed`).
        case added(Entry)
        /// Its phase or its name changed.
        case changed(Entry)
        /// Only its progress changed: an observer may keep the newest of several.
        case progress(Entry)
        /// Its media link was found again on its page (`DownloadEvent.linkRefreshed`).
        case linkRefreshed(Entry)
        /// A run of it ended complete (with its item as the library lists it) or failed; a
        /// run that ends paused, or that goes on at once (Continue during its stop), is `.changed`.
        case ended(Entry, LibraryItem?)
        case removed(String)

        /// The entry it carries (none for `.removed`).
        public var entry: Entry? {
            switch self {
            case .added(let entry), .changed(let entry), .progress(let entry), .linkRefreshed(let entry),
                 .ended(let entry, _): entry
            case .removed: nil
            }
        }

        public var url: String {
            if case .removed(let url) = self { url } else { entry!.url }
        }
    }

    private struct Item {
        let worker: DownloadWorker
        var entry: Entry
        /// What the cache holds for it has been read.
        var known: Bool
    }

    private struct State {
        var items: [String: Item] = [:]
        /// Every URL, in the order it was added.
        var order: [String] = []
        /// URLs waiting for a slot, in turn.
        var line: [String] = []
        var maxRunning: Int
        var whenIdle: [@Sendable () -> Void] = []
        /// Events made and not yet handed over, in order; one thread hands them over at a time.
        var outbox: [Event] = []
        var handingOver = false

        var slotsTaken: Int { items.values.filter(\.entry.phase.holdsSlot).count }

        /// Queues `make` of `url`'s entry as it is now.
        mutating func emit(_ make: (Entry) -> Event, _ url: String) {
            if let entry = items[url]?.entry { outbox.append(make(entry)) }
        }
    }

    /// What `apply` found to do once the lock is released.
    private struct Actions {
        var start: [DownloadWorker] = []
        var stop: [DownloadWorker] = []
        /// Boards whose bytes are on their way (waiting for a slot), or no longer (left the line).
        var coming: [(board: DownloadBoard, Bool)] = []
        var idle: [@Sendable () -> Void] = []
    }

    public let cache: Cache
    private let options: DownloadOptions
    private let onEvent: @Sendable (Event) -> Void
    private let state: Locked<State>
    /// Reads the cache off the caller's thread, in the order asked.
    private let disk = Worker(name: "fetchplay store disk", stage: .checkpoints)
    /// The disk is read on the caller's thread instead (a `DownloadTask`).
    private let readsOnCaller: Bool

    /// - Parameter onEvent: hears every change, in order, on any thread; it may call the store.
    public convenience init(cache: Cache, maxRunning: Int = 3, options: DownloadOptions = .init(),
                            onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.init(cache: cache, maxRunning: maxRunning, options: options, readsOnCaller: false, onEvent: onEvent)
    }

    init(cache: Cache, maxRunning: Int, options: DownloadOptions, readsOnCaller: Bool,
         onEvent: @escaping @Sendable (Event) -> Void) {
        self.cache = cache
        self.readsOnCaller = readsOnCaller
        self.options = options
        self.onEvent = onEvent
        state = Locked(State(maxRunning: max(1, maxRunning)))
    }

    /// How many may run at once; raising it starts waiting ones at once.
    public var maxRunning: Int {
        get { state.withLock { $0.maxRunning } }
        set {
            let actions = state.withLock { state in
                state.maxRunning = max(1, newValue)
                var actions = Actions()
                Self.grantSlots(&state, &actions)
                return actions
            }
            perform(actions)
        }
    }

    /// Every URL in the order it was added.
    public var entries: [Entry] {
        state.withLock { state in state.order.compactMap { state.items[$0]?.entry } }
    }

    public func entry(_ url: String) -> Entry? { state.withLock { $0.items[url]?.entry } }

    /// The videos the page at `url` offered when its download found several (nil otherwise).
    public func offeredVideos(_ url: String) -> PageFinding? { state.withLock { $0.items[url]?.worker }?.offeredVideos }

    /// What `url` has on disk now, to read it while it downloads (`PartialReader`).
    public func board(for url: String) -> DownloadBoard? { state.withLock { $0.items[url]?.worker.board } }

    /// `url`'s own speed limit, all its connections together; set its rate at any time (the
    /// global one is `DownloadOptions.speedLimit`). Nil for a URL the store does not hold.
    public func speedLimit(for url: String) -> SpeedLimit? { state.withLock { $0.items[url]?.worker.speedLimit } }

    /// Whether `url` is saved as a presentation (HLS, DASH), as far as known: by its link, a
    /// choice, or its answer in a run.
    public func isPresentation(_ url: String) -> Bool {
        guard let worker = state.withLock({ $0.items[url]?.worker }) else { return false }
        if case .presentation = worker.kind { return true }
        return worker.kind == nil && StreamLink.isPlaylistLink(url)
    }

    /// URLs whose workers are running now (including ones winding down after a pause).
    public var runningURLs: Set<String> {
        state.withLock { Set($0.items.filter(\.value.entry.phase.holdsSlot).keys) }
    }

    // MARK: Commands

    /// Adds `text` (validated, and named by its identity) if new; what the cache holds for it shows
    /// once read. With `start`, it runs as soon as that is known and a slot is free, and waits
    /// otherwise.
    ///
    /// - Parameters:
    ///   - context: what its requests carry (cookies, Referer, …) from now on, kept with its
    ///     partial; nil: the one kept (or none).
    ///   - choice: save it as a presentation, this variant or quality (a person's choice); nil:
    ///     what its link, the cache and its first answer say.
    @discardableResult
    public func add(_ text: String, context: RequestContext? = nil, choice: PresentationChoice? = nil,
                    start: Bool = true) throws(DownloadError) -> Entry {
        // The text, not the identity: a password in the link is needed for the request.
        let requestURL = try WebAddress.validate(text)
        let url = try WebAddress.identity(requestURL)
        if state.withLock({ $0.items[url] == nil }) {
            let worker = try DownloadWorker(requestURL: requestURL, cache: cache, options: options) { [weak self] event in
                self?.receive(event, from: url)
            }
            // What the cache holds: a finished video, a partial, or nothing.
            let held = readsOnCaller ? Self.read(cache, url, into: worker.board) : nil
            let phase: DownloadPhase = held.map { $0.isComplete ? .completed(path: $0.path) : .idle } ?? .idle
            let entry = Entry(url: url, phase: phase,
                              progress: DownloadProgress(bytesDone: held?.bytesDone ?? 0, total: held?.total))
            let added = state.withLock { state -> Bool in
                guard state.items[url] == nil else { return false }
                state.items[url] = Item(worker: worker, entry: entry, known: readsOnCaller)
                state.order.append(url)
                state.outbox.append(.added(entry))
                return true
            }
            if added {
                perform(Actions())
                if !readsOnCaller { readCache(for: url, worker: worker) }
            }
        }
        if let context { state.withLock { $0.items[url]?.worker }?.give(context) }
        if let choice { state.withLock { $0.items[url]?.worker }?.choose(choice) }
        if start { self.start(url) }
        return entry(url)!
    }

    /// Starts or continues `url`: now if a slot is free, else after the ones already waiting.
    /// Nothing happens when it runs, waits, or is complete (unless its file is gone since).
    public func start(_ url: String) {
        guard case .completed(let path) = entry(url)?.phase else { return apply(.start, to: url) }
        let checkVideo: @Sendable () -> Void = { [weak self] in
            guard FileIO.size(of: path) == nil else { return }
            self?.apply(.videoMissing, to: url)
            self?.apply(.start, to: url)
        }
        if readsOnCaller { checkVideo() } else { disk.submitOrRunHere(checkVideo) }
    }

    /// Pauses `url`: a running one stops within a second (its partial kept), a waiting one
    /// leaves the line.
    public func pause(_ url: String) { apply(.pause, to: url) }

    /// Forgets `url` (to delete its files); refused (false) while its worker runs.
    @discardableResult
    public func remove(_ url: String) -> Bool {
        let removed = state.withLock { state -> Bool in
            guard let item = state.items[url] else { return true }
            guard !item.entry.phase.holdsSlot else { return false }
            state.items[url] = nil
            state.order.removeAll { $0 == url }
            state.line.removeAll { $0 == url }
            state.outbox.append(.removed(url))
            return true
        }
        if removed { perform(Actions()) }
        return removed
    }

    /// Quitting: empties the line, pauses every running download (partials kept, ready to
    /// continue next time) and calls `done` once every worker has stopped, on any thread.
    public func stopAll(then done: @escaping @Sendable () -> Void) {
        let actions = state.withLock { state in
            var actions = Actions()
            for url in state.order { Self.reduce(&state, url, .pause, &actions) }
            if state.slotsTaken == 0 { actions.idle.append(done) } else { state.whenIdle.append(done) }
            return actions
        }
        perform(actions)
    }

    // MARK: The store

    /// Reads what the cache holds for a new URL on the disk queue, then shows it.
    private func readCache(for url: String, worker: DownloadWorker) {
        let cache = cache
        disk.submitOrRunHere { [weak self] in
            let held = Self.read(cache, url, into: worker.board)
            self?.learned(held, for: url, worker: worker)
        }
    }

    /// What the cache holds for `url`. A partial seeds the board, for a player reading it before
    /// (or without) a download; a finished video plays from its file, and a board already holding
    /// it before the entry says it is complete would pass for a download still arriving.
    private static func read(_ cache: Cache, _ url: String, into board: DownloadBoard) -> LibraryItem? {
        let held = cache.entry(for: url)
        if held?.isComplete != true, let disk = cache.bytesOnDisk(for: url) {
            board.seed(path: disk.path, ranges: disk.ranges, total: disk.total)
        }
        return held
    }

    /// What the cache holds for `url` is known: its progress, and a finished video completes
    /// it; a waiting one may now take a slot.
    private func learned(_ held: LibraryItem?, for url: String, worker: DownloadWorker) {
        let actions = state.withLock { state -> Actions in
            var actions = Actions()
            // Not a URL removed and added again meanwhile: that one has a read of its own.
            guard let item = state.items[url], item.worker === worker, !item.known else { return actions }
            state.items[url]?.known = true
            if let held {
                state.items[url]?.entry.progress = DownloadProgress(bytesDone: held.bytesDone, total: held.total)
            }
            state.emit(Event.changed, url)
            if let held, held.isComplete { Self.reduce(&state, url, .foundVideo(path: held.path), &actions) }
            Self.grantSlots(&state, &actions)
            return actions
        }
        perform(actions)
    }

    private func receive(_ event: DownloadEvent, from url: String) {
        switch event {
        case .progress(let progress):
            state.withLock { $0.items[url]?.entry.progress = progress; $0.emit(Event.progress, url) }
        case .state(.downloading):
            return
        case .linkRefreshed:
            state.withLock { $0.items[url]?.entry.refreshes += 1; $0.emit(Event.linkRefreshed, url) }
        case .named(let name):
            state.withLock { $0.items[url]?.entry.name = name; $0.emit(Event.changed, url) }
        case .state(let end):
            // A finished video's record, read here off the caller's thread, goes with its end.
            let item = if case .completed = end { cache.entry(for: url) } else { nil as LibraryItem? }
            return apply(.workerEnded(end), to: url, item: item)
        }
        perform(Actions())
    }

    private func apply(_ event: DownloadLife.Event, to url: String, item: LibraryItem? = nil) {
        let actions = state.withLock { state in
            var actions = Actions()
            Self.reduce(&state, url, event, &actions, item: item)
            return actions
        }
        perform(actions)
    }

    /// One event for one URL, and everything it leads to, under the lock.
    private static func reduce(_ state: inout State, _ url: String, _ event: DownloadLife.Event, _ actions: inout Actions,
                               item endedItem: LibraryItem? = nil) {
        guard let item = state.items[url] else { return }
        let (phase, effects) = DownloadLife.reduce(item.entry.phase, event)
        guard phase != item.entry.phase || !effects.isEmpty else { return }
        state.items[url]?.entry.phase = phase
        defer {
            let ended = switch (event, phase.state) {
            case (.workerEnded, .completed), (.workerEnded, .failed): !phase.isWaiting
            default: false
            }
            state.emit(ended ? { .ended($0, endedItem) } : Event.changed, url)
            grantSlots(&state, &actions)
        }
        for effect in effects {
            switch effect {
            case .wantSlot(let first):
                state.line.removeAll { $0 == url }
                if first { state.line.insert(url, at: 0) } else { state.line.append(url) }
                // A player reading it waits for the bytes rather than hear there are none.
                actions.coming.append((item.worker.board, true))
            case .dropSlotRequest:
                state.line.removeAll { $0 == url }
                actions.coming.append((item.worker.board, false))
            case .startWorker:
                actions.start.append(item.worker)
            case .stopWorker:
                actions.stop.append(item.worker)
            case .freeSlot:
                if state.slotsTaken == 0 {
                    actions.idle += state.whenIdle
                    state.whenIdle = []
                }
            }
        }
    }

    /// Gives free slots to the line, in turn; the first in line takes none (nor do those after
    /// it) until what the cache holds for it is known.
    private static func grantSlots(_ state: inout State, _ actions: inout Actions) {
        while state.slotsTaken < state.maxRunning, let first = state.line.first, state.items[first]?.known != false {
            let url = state.line.removeFirst()
            reduce(&state, url, .slotGranted, &actions)
        }
    }

    private func perform(_ actions: Actions) {
        for (board, coming) in actions.coming { board.setRunning(coming) }
        actions.stop.forEach { $0.stop() }
        actions.start.forEach { $0.start() }
        handOver()
        actions.idle.forEach { $0() }
    }

    /// Hands the outbox to `onEvent` in order. One thread at a time: events made meanwhile, on
    /// another thread or by `onEvent` itself, are handed over by the thread already at it.
    private func handOver() {
        var mine = false
        while let events = state.withLock({ state -> [Event]? in
            guard mine || !state.handingOver, !state.outbox.isEmpty else {
                if mine { state.handingOver = false }
                return nil
            }
            mine = true
            state.handingOver = true
            defer { state.outbox = [] }
            return state.outbox
        }) { events.forEach(onEvent) }
    }
}

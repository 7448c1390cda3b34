import Foundation
import Locking

/// Several downloads at once: at most `maxRunning` run, the rest wait in the order they came.
///
/// Each URL gets one `DownloadTask`. A running task holds its slot until its worker reports a
/// stopping state (completed, paused, failed), so there are never more than `maxRunning` workers
/// alive; only then does the next waiting URL start. Pause, continue and remove act per URL.
///
/// Like the task, the queue has no main loop: `onChange` runs on whichever thread changed
/// something (a task's worker, or the caller), with the URL that changed. A window hops to its
/// main thread and reads `entries` there.
public final class DownloadQueue: Sendable {
    /// One URL in the queue, as it stands now.
    public struct Entry: Sendable, Equatable {
        public var url: String
        /// The task's state; `.downloading` from the moment it takes a slot.
        public var state: DownloadState
        public var progress: DownloadProgress
        /// Waiting for a free slot (its state is then `.idle` or `.paused`).
        public var isWaiting: Bool
    }

    private struct Item {
        let task: DownloadTask
        var entry: Entry
        /// Holds a slot: started, and its worker has not reported a stop yet.
        var active = false
        /// Pause was asked while active; the worker is winding down.
        var pausing = false
        /// Continue was asked while it was still pausing: it waits again once stopped.
        var continueWhenStopped = false
    }

    private struct State {
        var items: [String: Item] = [:]
        /// Every URL, in the order it was added.
        var order: [String] = []
        var waiting: [String] = []
        var maxRunning: Int
        var whenIdle: [@Sendable () -> Void] = []

        var activeCount: Int { items.values.filter(\.active).count }
    }

    public let cache: Cache
    private let options: DownloadOptions
    private let onChange: @Sendable (String) -> Void
    private let state: Locked<State>

    /// - Parameter onChange: called with a URL whenever its entry changes, on any thread.
    public init(cache: Cache, maxRunning: Int = 3, options: DownloadOptions = .init(),
                onChange: @escaping @Sendable (String) -> Void = { _ in }) {
        self.cache = cache
        self.options = options
        self.onChange = onChange
        state = Locked(State(maxRunning: max(1, maxRunning)))
    }

    /// How many may run at once; raising it starts waiting ones at once.
    public var maxRunning: Int {
        get { state.withLock { $0.maxRunning } }
        set {
            state.withLock { $0.maxRunning = max(1, newValue) }
            pump()
        }
    }

    /// Every URL in the order it was added.
    public var entries: [Entry] {
        state.withLock { state in state.order.compactMap { state.items[$0]?.entry } }
    }

    public func entry(_ url: String) -> Entry? { state.withLock { $0.items[url]?.entry } }

    /// URLs whose workers are running now (including ones winding down after a pause).
    public var runningURLs: Set<String> {
        state.withLock { Set($0.items.filter(\.value.active).keys) }
    }

    // MARK: Commands

    /// Adds `url` (validated) if new, showing what the cache holds for it; with `start`, it
    /// runs at once when a slot is free and waits otherwise. Returns its entry.
    @discardableResult
    public func add(_ text: String, start: Bool = true) throws(DownloadError) -> Entry {
        let url = try WebAddress.identity(text)
        if state.withLock({ $0.items[url] == nil }) {
            // The text, not the identity: a password in the link is needed for the request.
            let task = try DownloadTask(url: text, cache: cache, options: options) { [weak self] event in
                self?.receive(event, from: url)
            }
            let entry = Entry(url: url, state: task.state, progress: task.progress, isWaiting: false)
            state.withLock { state in
                guard state.items[url] == nil else { return }
                state.items[url] = Item(task: task, entry: entry)
                state.order.append(url)
            }
            onChange(url)
        }
        if start { self.start(url) }
        return entry(url)!
    }

    /// Starts or continues `url`: now if a slot is free, else after the ones already waiting.
    /// Nothing happens when it runs, waits, or is complete.
    public func start(_ url: String) {
        let changed = state.withLock { state -> Bool in
            guard var item = state.items[url] else { return false }
            defer { state.items[url] = item }
            if item.active {
                guard item.pausing, !item.continueWhenStopped else { return false }
                item.continueWhenStopped = true
                return false
            }
            if case .completed = item.entry.state { return false }
            guard !item.entry.isWaiting else { return false }
            item.entry.isWaiting = true
            state.waiting.append(url)
            return true
        }
        if changed { onChange(url) }
        pump()
    }

    /// Pauses `url`: a running one stops within a second (its partial kept), a waiting one
    /// leaves the line.
    public func pause(_ url: String) {
        let (task, changed) = state.withLock { state -> (DownloadTask?, Bool) in
            guard var item = state.items[url] else { return (nil, false) }
            defer { state.items[url] = item }
            item.continueWhenStopped = false
            if item.active {
                item.pausing = true
                return (item.task, false)
            }
            guard item.entry.isWaiting else { return (nil, false) }
            item.entry.isWaiting = false
            item.entry.state = item.entry.progress.bytesDone > 0 ? .paused : .idle
            state.waiting.removeAll { $0 == url }
            return (nil, true)
        }
        task?.pause()
        if changed { onChange(url) }
    }

    /// Forgets `url` (to delete its files); refused (false) while its worker runs.
    @discardableResult
    public func remove(_ url: String) -> Bool {
        let removed = state.withLock { state -> Bool in
            guard let item = state.items[url] else { return true }
            guard !item.active else { return false }
            state.items[url] = nil
            state.order.removeAll { $0 == url }
            state.waiting.removeAll { $0 == url }
            return true
        }
        if removed { onChange(url) }
        return removed
    }

    /// Quitting: empties the line, pauses every running download (partials kept, ready to
    /// continue next time) and calls `done` once every worker has stopped, on any thread.
    public func stopAll(then done: @escaping @Sendable () -> Void) {
        let (tasks, waited, idle) = state.withLock { state -> ([DownloadTask], [String], Bool) in
            let waited = state.waiting
            for url in waited {
                guard var item = state.items[url] else { continue }
                item.entry.isWaiting = false
                item.entry.state = item.entry.progress.bytesDone > 0 ? .paused : .idle
                state.items[url] = item
            }
            state.waiting = []
            var tasks: [DownloadTask] = []
            for url in state.order where state.items[url]?.active == true {
                state.items[url]?.pausing = true
                state.items[url]?.continueWhenStopped = false
                tasks.append(state.items[url]!.task)
            }
            if !tasks.isEmpty { state.whenIdle.append(done) }
            return (tasks, waited, tasks.isEmpty)
        }
        waited.forEach(onChange)
        tasks.forEach { $0.cancel() }
        if idle { done() }
    }

    // MARK: Events

    private func receive(_ event: DownloadEvent, from url: String) {
        var finished: [@Sendable () -> Void] = []
        state.withLock { state in
            guard var item = state.items[url] else { return }
            defer { state.items[url] = item }
            switch event {
            case .progress(let progress):
                item.entry.progress = progress
            case .state(let newState):
                item.entry.state = newState
                item.entry.progress = item.task.progress
                guard newState != .downloading else { return }
                // The worker has stopped: its slot is free.
                item.active = false
                item.pausing = false
                if item.continueWhenStopped, newState.canContinue {
                    item.continueWhenStopped = false
                    item.entry.isWaiting = true
                    state.waiting.insert(url, at: 0)
                }
                if state.items.values.allSatisfy({ !$0.active || $0.task === item.task }) {
                    finished = state.whenIdle
                    state.whenIdle = []
                }
            }
        }
        onChange(url)
        if case .state(let newState) = event, newState != .downloading {
            pump()
            finished.forEach { $0() }
        }
    }

    /// Starts waiting URLs while slots are free, first come first served.
    private func pump() {
        let starting = state.withLock { state -> [(String, DownloadTask)] in
            var starting: [(String, DownloadTask)] = []
            while state.activeCount < state.maxRunning, !state.waiting.isEmpty {
                let url = state.waiting.removeFirst()
                guard var item = state.items[url] else { continue }
                item.entry.isWaiting = false
                if case .completed = item.task.state {
                    // Finished meanwhile (another window or process): no slot needed.
                    item.entry.state = item.task.state
                } else {
                    item.active = true
                    item.entry.state = .downloading
                    starting.append((url, item.task))
                }
                state.items[url] = item
            }
            return starting
        }
        for (url, task) in starting {
            onChange(url)
            task.start()
        }
    }
}

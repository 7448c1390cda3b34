import FetchCore
import GLibSupport

/// The window's view of one download: its URL, its task, and the newest state and progress.
///
/// The task reports on its worker thread; progress comes over a `LatestValueRelay` (so at most one
/// pending update) and state changes over `MainContext.post`, both tagged with the task's
/// generation so a replaced task's late events are dropped. `onChange` fires on the main thread
/// whenever what the window shows may have changed.
@MainActor
public final class DownloadSession {
    public let cache: Cache
    public private(set) var url: String?
    public private(set) var state: DownloadState = .idle
    public private(set) var progress: DownloadProgress?
    public var onChange: (@MainActor () -> Void)?

    private var task: DownloadTask?
    private var generation = 0
    private var whenStopped: [@MainActor () -> Void] = []

    public init(cache: Cache) { self.cache = cache }

    /// True when bytes are on disk that Continue would build on.
    public var hasPartial: Bool {
        if case .completed = state { return false }
        return (progress?.bytesDone ?? 0) > 0
    }

    /// Makes `url` the current download, pausing the previous one; shows what the cache holds.
    ///
    /// - Throws: `.invalidURL` / `.unsupportedScheme` when the text is not an http(s) URL.
    public func load(_ text: String) throws(DownloadError) {
        let url = try WebAddress.validate(text)
        guard url != self.url || task == nil else { return }
        task?.cancel()
        generation += 1
        let generation = generation
        let relay = LatestValueRelay<DownloadProgress> { [weak self] progress in
            self?.receive(.progress(progress), generation: generation)
        }
        let task = try DownloadTask(url: url, cache: cache) { [weak self] event in
            switch event {
            case .progress(let progress): relay.publish(progress)
            case .state: MainContext.post { self?.receive(event, generation: generation) }
            }
        }
        self.task = task
        self.url = url
        state = task.state
        progress = task.progress
        onChange?()
    }

    /// Starts or continues the current download (a retry after a failure).
    public func start() {
        guard let task else { return }
        if case .completed = state { return }
        state = .downloading
        task.start()
        onChange?()
    }

    /// Pauses the current download; the partial stays. The state follows when the worker stops.
    public func pause() { task?.pause() }

    /// True while the worker may still be writing.
    public var isRunning: Bool { state == .downloading }

    /// Stops the download for good (window closing) and calls `done` once the worker has stopped.
    public func stop(then done: @escaping @MainActor () -> Void) {
        guard isRunning, let task else { return done() }
        whenStopped.append(done)
        task.cancel()
    }

    private func receive(_ event: DownloadEvent, generation: Int) {
        guard generation == self.generation else { return }
        switch event {
        case .progress(let progress):
            self.progress = progress
        case .state(let state):
            self.state = state
            if let task { progress = task.progress }
            if state != .downloading {
                let waiting = whenStopped
                whenStopped = []
                waiting.forEach { $0() }
            }
        }
        onChange?()
    }
}

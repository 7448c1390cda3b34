import Foundation
import ThreadKit

/// One URL's download: start, pause, continue and cancel, from any thread but a main thread
/// (it reads the cache on the caller's thread).
///
/// A store of one (`DownloadQueue` with no limit), so a single download lives by the same
/// reducer as the window's many. Everything it observes comes back as the store's events, in
/// order, on the thread that changed something, progress at most every `progressInterval`.
public final class DownloadTask: Sendable {
    /// The link's identity (`WebAddress.identity`): what the library, records and logs name.
    public let url: String
    private let store: DownloadQueue
    /// Its phase as the last event handed to `onEvent` left it, for `wait()`.
    private let heard: Locked<DownloadPhase?>

    /// Prepares a download of `url` into `cache`; nothing happens before `start()`.
    ///
    /// The state reflects the cache at once: `.completed` when the video is there, `.idle` with
    /// the partial's progress when part of it is.
    ///
    /// A file, an HLS playlist or a DASH manifest: which one, its link, the cache or its first
    /// answer says (or `choice`); presentations are saved as `options.presentations` says.
    ///
    /// - Parameters:
    ///   - context: what its requests carry from now on, kept with its partial (replacing what
    ///     was kept); nil: the one kept with the partial, else `options.context`.
    ///   - choice: save it as a presentation, this variant or quality.
    public init(url text: String, cache: Cache, options: DownloadOptions = .init(), context: RequestContext? = nil,
                choice: PresentationChoice? = nil, onEvent: @escaping @Sendable (DownloadQueue.Event) -> Void) throws(DownloadError) {
        let heard = Locked<DownloadPhase?>(nil)
        self.heard = heard
        store = DownloadQueue(cache: cache, maxRunning: 1, options: options, readsOnCaller: true) { event in
            onEvent(event)
            heard.withLockAndNotify { $0 = event.entry?.phase ?? $0 }
        }
        url = try store.add(text, context: context, choice: choice, start: false).url
    }

    public var state: DownloadState { store.entry(url)?.state ?? .idle }
    public var progress: DownloadProgress { store.entry(url)?.progress ?? DownloadProgress(bytesDone: 0, total: nil) }

    /// This download's speed limit, all its connections together; set its rate at any time.
    public var speedLimit: SpeedLimit { store.speedLimit(for: url)! }

    /// Starts or continues the download. Does nothing while it runs or once it is complete.
    public func start() { store.start(url) }

    /// Stops the transfer within a second; the partial stays, ready to continue.
    public func pause() { store.pause(url) }

    /// Stops like `pause()`; for callers that are going away (quit, SIGINT).
    public func cancel() { pause() }

    /// Blocks until the worker has stopped and its last event was handed to `onEvent`, and
    /// returns the state then. Never on the main thread.
    @discardableResult
    public func wait() -> DownloadState {
        let store = store, url = url
        heard.wait(until: { heard in
            // The event of a start may still be on its way (another thread hands events over).
            [heard, store.entry(url)?.phase].allSatisfy { phase in phase.map { !$0.holdsSlot && !$0.isWaiting } ?? true }
        })
        return state
    }
}

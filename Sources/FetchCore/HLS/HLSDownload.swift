import CLinux
import Foundation
import Locking

/// One HLS link saved as one video: start, pause, continue and cancel, from any thread, like
/// `DownloadTask`.
///
/// The playlist (a master's best or chosen variant, and its audio rendition when that has a
/// playlist of its own) is read once and kept; each segment is then
/// a `DownloadTask` of its own in the presentation's folder, several at once, so every segment
/// resumes, retries and is never corrupt by the engine's own rules, and a segment finished
/// before a pause, a quit or a SIGKILL is never fetched again. While they download, the
/// segments already whole go in playing order (decrypted) into the remux, so the video is
/// written about when the last segment arrives; then it moves into the videos folder. The
/// remux starts over at every start: the segments on disk are what a download keeps.
public final class HLSDownload: Sendable {
    public let url: String
    private let requestURL: String
    private let cache: Cache
    /// The options, with the request context this run sends (`run` resolves it).
    private var options: DownloadOptions { resolvedOptions.withLock { $0 } }
    private let resolvedOptions: Locked<DownloadOptions>
    /// A context given with this download, kept with the presentation from the first run on;
    /// nil: the one kept (or `options.context`).
    private let givenContext: Locked<RequestContext?>
    private let quality: String?
    private let variant: HLSVariant?
    private let connections: Int
    private let remux: HLSRemux?
    private let onEvent: @Sendable (DownloadEvent) -> Void
    private let stop = StopSignal()
    private let shared: Locked<Shared>
    /// How many segments the last progress report counted. Segments finish on several threads,
    /// and a report computed before another's could otherwise reach the listener after it.
    private let reported = Locked(-1)

    private struct Shared {
        var state: DownloadState
        var progress: DownloadProgress
        /// Runs that downloaded (one that found the video complete in the cache does not count).
        var runs = 0
        var finished: DispatchSemaphore?
        /// The segment downloads running now, so a pause reaches them.
        var running: [ObjectIdentifier: DownloadTask] = [:]
        /// What the feeds wait for, and the remux they fill, so a pause releases them.
        var arrivals: HLSArrivals?
        var stream: (any HLSRemuxStream)?
    }

    /// Attempts per segment before the presentation fails (each one with the engine's retries).
    private let segmentAttempts = 3

    /// - Parameters:
    ///   - quality: "720p" picks the tallest variant no taller than that; nil, the best.
    ///   - variant: the variant a person chose from `variants(at:)`: its playlist is read
    ///     directly (the master is not read again; its links may carry one-time tokens).
    ///   - connections: segments fetched at once.
    ///   - remux: the segments → one playable file; nil keeps the joined segments as they are.
    ///   - context: what every playlist, key and segment request carries, kept with the
    ///     presentation (replacing what was kept); nil: the one kept, else `options.context`.
    public init(url text: String, cache: Cache, options: DownloadOptions = .init(), context: RequestContext? = nil,
                quality: String? = nil, variant: HLSVariant? = nil, connections: Int = 4, remux: HLSRemux?,
                onEvent: @escaping @Sendable (DownloadEvent) -> Void) throws(DownloadError) {
        requestURL = try WebAddress.validate(text)
        url = try WebAddress.identity(requestURL)
        self.cache = cache
        resolvedOptions = Locked(options)
        givenContext = Locked(context)
        self.quality = quality
        self.variant = variant
        self.connections = max(1, connections)
        self.remux = remux
        self.onEvent = onEvent
        // Nothing read here: the window makes one on its main thread, which does no disk I/O.
        // What the cache holds shows once started (a finished video completes at once).
        shared = Locked(Shared(state: .idle, progress: DownloadProgress(bytesDone: 0, total: nil)))
    }

    /// The variants of the master playlist at `text`, best first (tallest, then highest
    /// `BANDWIDTH`), for a person to choose from; empty when the link is a media playlist
    /// (there is nothing to choose). Blocks: never on the main thread.
    ///
    /// - Throws: the link's or the network's error, `.refusedStream` for a playlist that is not valid.
    /// - Parameter stop: raised, ends the read (and its retries) with an error.
    public static func variants(at text: String, options: DownloadOptions = .init(),
                                stop: StopSignal = StopSignal()) throws(DownloadError) -> [HLSVariant] {
        let url = try WebAddress.validate(text)
        let answer = try HLSFetch(options: options, stop: stop).get(url)
        if DASHSource.isManifest(answer, link: url) { return DASHChoice.variants(try DASHSource.parse(answer), url: url) }
        let parsed: HLSPlaylist
        do throws(HLSRefusal) {
            parsed = try HLSPlaylistParser.parse(String(decoding: answer.body, as: UTF8.self), base: answer.finalURL)
        } catch {
            throw .refusedStream(error)
        }
        guard case .master(let variants) = parsed else { return [] }
        return variants.offered.sorted { ($0.height ?? 0, $0.bandwidth) > ($1.height ?? 0, $1.bandwidth) }
    }

    /// Whether a link names a playlist or a DASH manifest by its extension (`.m3u8`, `.m3u`,
    /// `.mpd`), so it goes straight here without a first request through the engine.
    public static func isPlaylistLink(_ text: String) -> Bool {
        guard let url = try? WebAddress.validate(text), let name = WebAddress.lastPathSegment(of: url) else { return false }
        return name.lowercased().hasSuffix(".m3u8") || name.lowercased().hasSuffix(".m3u") || name.lowercased().hasSuffix(".mpd")
    }

    public var state: DownloadState { shared.withLock { $0.state } }
    public var progress: DownloadProgress { shared.withLock { $0.progress } }
    /// How many times it started downloading, as `DownloadQueue.Entry.runs` counts a worker's starts.
    public var runs: Int { shared.withLock { $0.runs } }

    /// Starts or continues; does nothing while it runs.
    public func start() {
        let done = shared.withLock { shared -> DispatchSemaphore? in
            guard shared.finished == nil else { return nil }
            stop.lower()
            let done = DispatchSemaphore(value: 0)
            shared.finished = done
            // Downloading from here on, not once its thread runs: a retry read at once must not
            // still say the last run's failure (the window would take it for this run's end),
            // and stopping everything must wait for it.
            shared.state = .downloading
            return done
        }
        guard let done else { return }
        // Quitting waits for it (its segment threads end inside `run`).
        let job = BackgroundWork.begin()
        let thread = Thread { [self] in
            let end = run()
            shared.withLock {
                $0.state = end
                $0.finished = nil
            }
            onEvent(.state(end))
            done.signal()
            job?.end()
        }
        thread.name = "fetchplay hls"
        thread.start()
    }

    /// Stops every segment within a second; the finished ones stay, the partial ones too.
    public func pause() {
        let (tasks, arrivals, stream) = shared.withLock { shared in
            stop.raise()
            return (Array(shared.running.values), shared.arrivals, shared.stream)
        }
        tasks.forEach { $0.pause() }
        arrivals?.close()
        // A feed may wait in the remux for another one that stopped: the remux stops too, on a
        // thread of its own (stopping GStreamer waits for its threads; the caller may be the
        // window's).
        if let stream { Thread { stream.cancel() }.start() }
    }

    public func cancel() { pause() }

    /// Blocks until the worker has stopped; never on the main thread.
    @discardableResult
    public func wait() -> DownloadState {
        let semaphore = shared.withLock { $0.finished }
        semaphore?.wait()
        semaphore?.signal()
        return state
    }

    private func publish(_ state: DownloadState) {
        shared.withLock { $0.state = state }
        onEvent(.state(state))
    }

    // MARK: The worker

    private func run() -> DownloadState {
        if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
        let key = Cache.key(for: url)
        do {
            let lock = try PartialLock(cache: cache, key: key)
            defer { withExtendedLifetime(lock) {} }
            shared.withLock { $0.runs += 1 }
            publish(.downloading)
            try resolveContext()
            let presentation = try HLSPresentation(cache: cache, key: key)
            var record = try presentation.load(url: url) ?? choosePlaylist(into: presentation)
            if record.failure != nil {
                // A new try: the last one's reason is no longer what the library should say.
                record.failure = nil
                try presentation.save(record)
            }
            do throws(DownloadError) {
                var playlists = [try mediaPlaylist(record.mediaPlaylist, base: record.mediaURL)]
                if let text = record.audioPlaylist, let base = record.audioURL {
                    playlists.append(try mediaPlaylist(text, base: base))
                }
                let end = try save(playlists, record: record, presentation: presentation, key: key)
                // What the page knew is needed no longer.
                if case .completed = end { cache.forgetContext(for: url) }
                return end
            } catch {
                // Kept with the segments, so the library says why after a restart too.
                if !(stop.isRaised && error == .other("stopped")) {
                    record.failure = error.message
                    try? presentation.save(record)
                }
                throw error
            }
        } catch let error as DownloadError {
            if stop.isRaised, case .other("stopped") = error { return .paused }
            return .failed(error)
        } catch {
            return .failed(.other("\(error)"))
        }
    }

    /// The context this run sends: the one given (kept from now on), else the one kept.
    private func resolveContext() throws(DownloadError) {
        let given = givenContext.withLock { given in defer { given = nil }; return given }
        let context = given ?? cache.context(for: url) ?? options.context
        resolvedOptions.withLock { $0.context = context }
        if let given { try cache.keepContext(given, for: url) }
    }

    /// Reads the link (and a master's chosen variant) and keeps the media playlist. A refused
    /// presentation leaves nothing behind.
    private func choosePlaylist(into presentation: HLSPresentation) throws(DownloadError) -> HLSPresentation.Record {
        let fetch = HLSFetch(options: options, stop: stop)
        do throws(DownloadError) {
            // A variant chosen from the master before: its playlist straight away.
            var answer = try fetch.get(variant?.url ?? requestURL)
            if DASHSource.isManifest(answer, link: requestURL) {
                let record = try DASHSource.record(url: url, answer: answer, fetch: fetch, quality: quality,
                                                   representation: variant?.representation)
                // The playlists made from it read as the saver's own, or nothing is kept.
                _ = try mediaPlaylist(record.mediaPlaylist, base: record.mediaURL)
                if let text = record.audioPlaylist, let base = record.audioURL { _ = try mediaPlaylist(text, base: base) }
                try presentation.save(record)
                return record
            }
            var chosen = variant
            if chosen == nil, case .master(let variants) = try parse(answer) {
                guard let best = variants.choose(quality: quality) else { throw .refusedStream(.invalid("it has no variants")) }
                chosen = best
                answer = try fetch.get(best.url)
            }
            _ = try mediaPlaylist(answer)
            var record = HLSPresentation.Record(url: url, mediaURL: answer.finalURL,
                                                mediaPlaylist: String(decoding: answer.body, as: UTF8.self), variant: chosen?.label)
            if let audio = chosen?.audioToFetch, let audioURL = audio.url {
                let audioAnswer = try fetch.get(audioURL)
                _ = try mediaPlaylist(audioAnswer)
                record.audioURL = audioAnswer.finalURL
                record.audioPlaylist = String(decoding: audioAnswer.body, as: UTF8.self)
                record.audioName = audio.name
            }
            try presentation.save(record)
            return record
        } catch {
            presentation.remove()
            throw error
        }
    }

    private func parse(_ answer: HLSFetch.Answer) throws(DownloadError) -> HLSPlaylist {
        try parse(String(decoding: answer.body, as: UTF8.self), base: answer.finalURL)
    }

    /// The segments of a variant's (or rendition's) playlist; a master there is refused.
    private func mediaPlaylist(_ answer: HLSFetch.Answer) throws(DownloadError) -> HLSMediaPlaylist {
        try mediaPlaylist(String(decoding: answer.body, as: UTF8.self), base: answer.finalURL)
    }

    private func mediaPlaylist(_ text: String, base: String) throws(DownloadError) -> HLSMediaPlaylist {
        guard case .media(let playlist) = try parse(text, base: base) else {
            throw .refusedStream(.invalid("the variant is itself a master playlist"))
        }
        return playlist
    }

    private func parse(_ text: String, base: String) throws(DownloadError) -> HLSPlaylist {
        do throws(HLSRefusal) {
            return try HLSPlaylistParser.parse(text, base: base)
        } catch {
            throw .refusedStream(error)
        }
    }

    // MARK: Segments into the remux

    /// Downloads every resource not yet whole while one feed per playlist hands the whole ones
    /// to the remux in playing order; then the video goes into place. A pause or a failure
    /// stops both, keeping every segment and dropping the half-written video.
    ///
    /// - Parameter playlists: the variant's, then its audio rendition's if it has its own.
    private func save(_ playlists: [HLSMediaPlaylist], record: HLSPresentation.Record, presentation: HLSPresentation,
                      key: String) throws(DownloadError) -> DownloadState {
        let resources = HLSPresentation.resources(of: playlists)
        let pending = resources.filter { presentation.finishedPath(of: $0) == nil }
        let arrivals = HLSArrivals(done: Set(resources).subtracting(pending))
        let fragmented = playlists[0].segments.contains { $0.map != nil }
        let output = presentation.folder + (remux == nil ? (fragmented ? "/joined.mp4" : "/joined.ts") : "/video.mp4")
        let inputs: [HLSRemuxPlan.Input] = playlists.count == 1 ? [.videoAndAudio] : [.video] + playlists.dropFirst().map { _ in .audio }
        let plan = HLSRemuxPlan(output: output, inputs: inputs)
        shared.withLock { $0.arrivals = arrivals }
        defer { shared.withLock { $0.arrivals = nil; $0.stream = nil } }
        // A pause that came before the arrivals were there to close.
        if stop.isRaised { arrivals.close() }

        // The remux opens on a thread of its own while the first segments download (GStreamer
        // may still be loading its plug-ins), then one feed per playlist fills it.
        let opened = Locked<(any HLSRemuxStream)?>(nil)
        let feedFailure = Locked<DownloadError?>(nil)
        let feeds = DispatchGroup()
        feeds.enter()
        let opener = Thread { [self] in
            defer { feeds.leave() }
            do throws(DownloadError) {
                let stream = try openStream(plan)
                opened.withLock { $0 = stream }
                let stopped = shared.withLock { shared in
                    shared.stream = stream
                    return stop.isRaised
                }
                // A pause that came before the remux was there to stop.
                if stopped { stream.cancel() }
                try feed(playlists, into: stream, output: output, presentation: presentation, arrivals: arrivals)
            } catch {
                guard !stop.isRaised else { return }
                feedFailure.withLock { $0 = $0 ?? error }
                // The segments stop, and so does the other feed, which may wait in the remux.
                pause()
                opened.withLock { $0 }?.cancel()
            }
        }
        opener.name = "fetchplay remux"
        opener.start()

        let segments = Result { () throws(DownloadError) in
            try fetchSegments(resources, pending: pending, of: playlists, into: presentation, arrivals: arrivals)
        }
        if case .success(nil) = segments {} else {
            // Feeds that start after this see the arrivals closed and take nothing.
            arrivals.close()
            opened.withLock { $0 }?.cancel()
        }
        feeds.wait()
        let stream = opened.withLock { $0 }
        do throws(DownloadError) {
            if let failure = feedFailure.withLock({ $0 }) { throw failure }
            if case .success(let stopped?) = segments { throw .other("stopped \(stopped)") }
            _ = try segments.get()
            // A pause while the last segments went in.
            if stop.isRaised { throw .other("stopped") }
            guard let stream else { throw .other("stopped") }
            do { try stream.finish() } catch { throw stop.isRaised ? .other("stopped") : .remuxFailed("\(error)") }
        } catch {
            stream?.cancel()
            FileIO.remove(output)
            if case .other(let text) = error, text.hasPrefix("stopped") { return .paused }
            throw error
        }
        return try place(output, duration: playlists[0].duration, record: record, presentation: presentation, key: key)
    }

    /// One feed per playlist into `stream`, each on a thread of its own (they wait on each
    /// other in the remux, which interleaves them); the first error stops the others.
    private func feed(_ playlists: [HLSMediaPlaylist], into stream: any HLSRemuxStream, output: String,
                      presentation: HLSPresentation, arrivals: HLSArrivals) throws(DownloadError) {
        // The video's pages go to disk while it is written, so the sync at the end waits for
        // the last ones only. The remux writes through a descriptor of its own; this one only
        // starts the writeback (which any descriptor of the file can).
        let writeback = try? FileIO.open(output, O_RDONLY)
        defer { writeback.map(FileIO.close) }
        let keys = HLSKeyring(fetch: HLSFetch(options: options, stop: stop))
        let failure = Locked<DownloadError?>(nil)
        let group = DispatchGroup()
        for (index, playlist) in playlists.enumerated() {
            let feed = HLSFeed(index: index, playlist: playlist)
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                do throws(DownloadError) {
                    _ = try feed.run(arrivals: arrivals, path: presentation.finishedPath(of:), keys: keys, into: stream,
                                     stopped: { stop.isRaised }, appended: { writeback.map { _ = fp_start_writeback($0, 0, 0) } },
                                     rejected: presentation.forget)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    // The other feed may wait in the remux for this one's streams.
                    stream.cancel()
                }
            }
            thread.name = "fetchplay feed \(index)"
            thread.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func openStream(_ plan: HLSRemuxPlan) throws(DownloadError) -> any HLSRemuxStream {
        guard let remux else { return try HLSJoinedFile(plan) }
        FileIO.remove(plan.output)
        do { return try remux(plan) } catch { throw .remuxFailed("\(error)") }
    }

    /// Downloads every resource in `pending`, `connections` at once, telling `arrivals` of each
    /// one whole. Returns nil when all are there, `.paused` when stopped; throws the first
    /// segment's failure (the rest are paused, every byte kept).
    private func fetchSegments(_ resources: [String], pending: [String], of playlists: [HLSMediaPlaylist],
                               into presentation: HLSPresentation, arrivals: HLSArrivals) throws(DownloadError) -> DownloadState? {
        let done = Set(resources).subtracting(pending)
        var bytes: Int64 = 0
        for url in done { bytes += presentation.finishedPath(of: url).flatMap(FileIO.size(of:)) ?? 0 }
        // The finished segments and their bytes change together, so a report never counts a
        // segment without its bytes.
        let queue = Locked((next: 0, failure: DownloadError?.none, done: done, bytes: bytes))
        reportSegments(playlists, done: done, bytes: bytes)
        let group = DispatchGroup()
        for index in 0..<min(connections, pending.count) {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                while !stop.isRaised {
                    guard let resource = queue.withLock({ state -> String? in
                        guard state.failure == nil, state.next < pending.count else { return nil }
                        defer { state.next += 1 }
                        return pending[state.next]
                    }) else { return }
                    switch fetch(resource, into: presentation) {
                    case .completed(let path):
                        arrivals.arrived(resource)
                        let size = FileIO.size(of: path) ?? 0
                        let (done, bytes) = queue.withLock { state in
                            state.done.insert(resource)
                            state.bytes += size
                            return (state.done, state.bytes)
                        }
                        reportSegments(playlists, done: done, bytes: bytes)
                    case .failed(let error):
                        queue.withLock { if $0.failure == nil { $0.failure = error } }
                        // The others stop too, keeping what they have.
                        pause()
                        return
                    default:
                        return
                    }
                }
            }
            thread.name = "fetchplay segment \(index)"
            thread.start()
        }
        group.wait()
        if let failure = queue.withLock({ $0.failure }) { throw failure }
        if stop.isRaised { return .paused }
        return nil
    }

    /// One resource through the engine, with a few attempts of its own: a segment that fails
    /// now (a 404 while a server updates) may be there a moment later.
    private func fetch(_ resource: String, into presentation: HLSPresentation) -> DownloadState {
        var backoff = options.initialBackoff
        var end = DownloadState.idle
        for attempt in 1...segmentAttempts {
            let task: DownloadTask
            do {
                task = try DownloadTask(url: resource, cache: presentation.segments, options: options) { _ in }
            } catch {
                return .failed(error)
            }
            let id = ObjectIdentifier(task)
            let stopped = shared.withLock { shared -> Bool in
                guard !stop.isRaised else { return true }
                shared.running[id] = task
                return false
            }
            if stopped { return .paused }
            task.start()
            end = task.wait()
            shared.withLock { _ = $0.running.removeValue(forKey: id) }
            if case .failed(.notAVideo(let kind)) = end {
                // The engine's sentence speaks of the link a person entered; this is a file the
                // playlist names.
                return .failed(.badResponse("\(HLSAddress.quotedName(of: resource)), listed in the playlist, is \(kind.article), not media"))
            }
            guard case .failed(let error) = end, Self.worthAnotherAttempt(error), attempt < segmentAttempts else { return end }
            Log.warning("\(WebAddress.redacted(resource)): \(error.message) Trying again in \(backoff) s.")
            if stop.wait(seconds: backoff) { return .paused }
            backoff = min(backoff * 2, options.maxBackoff)
        }
        return end
    }

    private static func worthAnotherAttempt(_ error: DownloadError) -> Bool {
        switch error {
        case .httpStatus, .connectionLost, .stalled, .connectionRefused, .badResponse: true
        default: false
        }
    }

    /// - Parameter bytes: the size of the finished segments, so "kept" and "ready to continue"
    ///   read as for a file.
    private func reportSegments(_ playlists: [HLSMediaPlaylist], done: Set<String>, bytes: Int64) {
        let progress = DownloadProgress(bytesDone: bytes, total: nil,
                                        segments: HLSPresentation.progress(of: playlists, done: done))
        // Held while the listener hears it, so reports reach it in the order they count.
        reported.withLock { last in
            guard done.count > last else { return }
            last = done.count
            shared.withLock { $0.progress = progress }
            onEvent(.progress(progress))
        }
    }

    // MARK: The video

    /// Syncs the remuxed video, and moves it into the videos folder with its record; the
    /// presentation's folder goes last.
    private func place(_ output: String, duration: Double, record: HLSPresentation.Record, presentation: HLSPresentation,
                       key: String) throws(DownloadError) -> DownloadState {
        let fd = try FileIO.open(output, O_RDONLY)
        defer { FileIO.close(fd) }
        try FileIO.dataSync(fd, path: output)
        guard let size = FileIO.size(of: output) else { throw DownloadError.fileSystem("the joined video vanished") }
        // "index.m3u8" → "index.mp4": the name people see, and the file's under the videos folder.
        var final = DownloadRecord(url: url, displayName: HLSPresentation.displayName(of: url))
        final.finalURL = WebAddress.redacted(record.mediaURL)
        final.contentType = record.contentType
        final.total = size
        final.durableBytes = size
        final.duration = duration
        final.completed = Date()
        let destination = try cache.placeVideo(output, record: &final, key: key)
        presentation.remove()
        let progress = DownloadProgress(bytesDone: size, total: size, segments: shared.withLock { $0.progress.segments })
        shared.withLock { $0.progress = progress }
        onEvent(.progress(progress))
        return .completed(path: destination)
    }
}

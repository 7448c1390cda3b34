import Foundation
import ThreadKit

/// A presentation's segments fetched on the download's pool of connections: `connections`
/// threads, each taking the next pending resource and fetching it through the file engine
/// (`FileRun`) on its own thread, with the download's context, speed limits and stop. No thread
/// per segment; the pool is joined before `fetch` returns.
struct SegmentPool {
    let presentation: PresentationFolder
    let tracks: [StreamTrack]
    let options: DownloadOptions
    let limits: SpeedLimits
    let connections: Int
    /// Raised by a pause (through the download's own signal) or by the first failure here.
    let stop: StopSignal
    let report: @Sendable (DownloadEvent) -> Void
    /// The finished segments and their bytes, changed together so a report never counts a
    /// segment without its bytes; and the count last reported (segments finish on several
    /// threads, and a report computed before another's could otherwise reach the listener
    /// after it).
    private let tally = Locked(Tally())

    /// Attempts per segment before the presentation fails, for the failures the engine's own
    /// retries leave alone (a status, an unusable answer, a refused connection); a dropped or
    /// stalled connection is the engine's to retry, and is not tried again on top.
    static let segmentAttempts = 3

    private struct Tally {
        var next = 0
        var failure: DownloadError?
        var done: Set<String> = []
        var bytes: Int64 = 0
        var reported = -1
        var progress: SegmentProgress?
    }

    init(presentation: PresentationFolder, tracks: [StreamTrack], options: DownloadOptions, limits: SpeedLimits,
         connections: Int, stop: StopSignal, report: @escaping @Sendable (DownloadEvent) -> Void) {
        self.presentation = presentation
        self.tracks = tracks
        self.options = options
        self.limits = limits
        self.connections = connections
        self.stop = stop
        self.report = report
    }

    /// How far the segments are, as last reported.
    var progress: SegmentProgress? { tally.withLock { $0.progress } }

    /// Downloads every resource in `pending`, telling `arrivals` of each one whole. Returns
    /// when all are there or the pool was stopped (the caller tells which from `stop`); throws
    /// the first segment's failure (the others are stopped, every byte kept).
    func fetch(_ resources: [String], pending: [String], arrivals: SegmentArrivals) throws(DownloadError) {
        let done = Set(resources).subtracting(pending)
        var bytes: Int64 = 0
        for url in done { bytes += presentation.finishedPath(of: url).flatMap(FileIO.size(of:)) ?? 0 }
        tally.withLock { $0.done = done; $0.bytes = bytes }
        reportSegments()
        let threads = (0..<min(connections, pending.count)).map { index in
            Worker.run(name: "fetchplay segments \(index)", stage: .downloads, in: nil) { [self] in
                while !stop.isRaised, let resource = nextResource(of: pending) {
                    switch fetch(resource) {
                    case .completed(let path):
                        arrivals.arrived(resource)
                        let size = FileIO.size(of: path) ?? 0
                        tally.withLock { tally in
                            tally.done.insert(resource)
                            tally.bytes += size
                        }
                        reportSegments()
                    case .failed(let error):
                        tally.withLock { if $0.failure == nil { $0.failure = error } }
                        // The others stop too, keeping what they have.
                        stop.raise()
                    default:
                        return
                    }
                }
            }
        }
        threads.forEach { $0.join() }
        if let failure = tally.withLock({ $0.failure }) { throw failure }
    }

    private func nextResource(of pending: [String]) -> String? {
        tally.withLock { tally -> String? in
            guard tally.failure == nil, tally.next < pending.count else { return nil }
            defer { tally.next += 1 }
            return pending[tally.next]
        }
    }

    /// One resource through the engine, with a few attempts of its own: a segment that fails
    /// now (a 404 while a server updates) may be there a moment later.
    private func fetch(_ resource: String) -> DownloadState {
        var backoff = Backoff(options)
        var end = DownloadState.idle
        let url: String
        do { url = try WebAddress.identity(WebAddress.validate(resource)) } catch { return .failed(error) }
        for attempt in 1...Self.segmentAttempts {
            let run = FileRun(url: url, requestURL: resource, cache: presentation.segments, options: options,
                              board: DownloadBoard(), limits: limits, stop: stop) { _ in }
            switch run.run() {
            case .state(let state):
                end = state
            case .presentation(let kind):
                // The engine's sentence speaks of the link a person entered; this is a file the
                // playlist names.
                return .failed(.badResponse("\(RelativeLink.quotedName(of: resource)), listed in the playlist, is \(kind.article), not media"))
            }
            if case .failed(.notAVideo(let kind)) = end {
                return .failed(.badResponse("\(RelativeLink.quotedName(of: resource)), listed in the playlist, is \(kind.article), not media"))
            }
            guard case .failed(let error) = end, Self.worthAnotherAttempt(error), attempt < Self.segmentAttempts else { return end }
            Log.warning("\(WebAddress.redacted(resource)): \(error.message) Trying again in \(backoff.seconds) s.")
            if backoff.wait(on: stop) { return .paused }
        }
        return end
    }

    private static func worthAnotherAttempt(_ error: DownloadError) -> Bool {
        switch error {
        case .httpStatus, .connectionRefused, .badResponse: true
        default: false
        }
    }

    /// Tells how many segments are whole, and their bytes, so "kept" and "ready to continue"
    /// read as for a file. Held while the listener hears it, so reports reach it in the order
    /// they count.
    private func reportSegments() {
        tally.withLock { tally in
            guard tally.done.count > tally.reported else { return }
            tally.reported = tally.done.count
            let segments = PresentationFolder.progress(of: tracks, done: tally.done)
            tally.progress = segments
            report(.progress(DownloadProgress(bytesDone: tally.bytes, total: nil, segments: segments)))
        }
    }
}

import Foundation
import ThreadKit

/// A presentation's pieces fetched on the download's pool of connections: `connections`
/// threads, each taking the next piece the viewer needs and fetching it into the store
/// (`PieceFetch`) on a handle of its own, with the download's context, speed limits and stop;
/// more, up to `ceiling`, while those added raise the total rate (`GrowthWatch`: a host
/// limiting each connection). No thread per piece; the pool is joined before `fetch` returns.
///
/// The viewer needs the pieces in playing order, from where they watch: a seek ahead
/// (`DownloadBoard.want(seconds:)`) puts the pieces from there first, and those skipped over
/// after them, so every thread works on the next seconds in time and the video saved is whole.
/// The transfers in flight of pieces that play before the wanted time are held (paused, their
/// connections open: `PieceFetch`'s `hold`) and spare threads fetch the viewer's pieces, so the
/// line is the viewer's until what plays there is in; then the held ones go on, every byte asked
/// for once.
struct SegmentPool {
    let store: SegmentStore
    let tracks: [StreamTrack]
    let board: DownloadBoard
    let options: DownloadOptions
    let limits: SpeedLimits
    let connections: Int
    /// The most connections it grows to.
    let ceiling: Int
    /// Raised by a pause (through the download's own signal) or by the first failure here.
    let stop: StopSignal
    let report: @Sendable (DownloadEvent) -> Void
    /// Where else the tracks' pieces are, and which place answered.
    let mirrors: PieceMirrors
    /// The finished pieces and their bytes, changed together so a report never counts a piece
    /// without its bytes; and the count last reported (pieces finish on several threads, and a
    /// report computed before another's could otherwise reach the listener after it).
    private let tally = Locked(Tally())
    /// Bytes every connection received, counted as they arrive: what growing is judged by.
    private let received = Locked<Int64>(0)
    /// The spare threads started while transfers were held, joined with the others.
    private let spareThreads = Locked<[Worker]>([])

    private struct Tally {
        var pending: [StreamPiece] = []
        /// Where each piece starts and ends playing (seconds): the first of its segments and
        /// the last one's end; nil for init sections, which every position needs first.
        var starts: [StreamPiece: Double] = [:]
        var ends: [StreamPiece: Double] = [:]
        var failure: DownloadError?
        var done: Set<StreamPiece> = []
        var bytes: Int64 = 0
        var reported = -1
        var progress: SegmentProgress?
        /// Resources of ranged pieces whose server showed it honours `Range` (true) or not
        /// (false), and those a first range is being asked of now: until its answer, no other
        /// range of the same resource is asked for (a server ignoring ranges sends it whole,
        /// once).
        var honoursRanges: [String: Bool] = [:]
        var probing: Set<String> = []
        /// What a viewer needs before anything else: each track's piece playing at the wanted
        /// time (0 when someone waits to play it from the start), with its init section. While
        /// one is missing no connection starts another piece, so on a line they share the
        /// picture comes as soon as the line can bring it (connections on later pieces would
        /// split it). With nobody watching, every connection goes on at once.
        var urgent: Set<StreamPiece> = []
        /// The time a viewer last asked for, each track's (a player reads each track on its own).
        var wantedAt: [Int: Double] = [:]
        /// The track each piece belongs to.
        var trackOf: [StreamPiece: Int] = [:]
        /// Connections still at work.
        var running = 0
        /// Pieces whose transfers are held for the viewer's, and the spare threads fetching those.
        var held: Set<StreamPiece> = []
        var spares = 0
        /// Each piece's place in playing order, which the pending ones keep within their part.
        var order: [StreamPiece: Int] = [:]
        /// Every piece this fetch brings: only those can be urgent (one it does not bring would
        /// hold every connection back for good).
        var fetching: Set<StreamPiece> = []
    }

    init(store: SegmentStore, tracks: [StreamTrack], board: DownloadBoard, options: DownloadOptions, limits: SpeedLimits,
         connections: Int, ceiling: Int? = nil, stop: StopSignal, report: @escaping @Sendable (DownloadEvent) -> Void) {
        self.store = store
        self.tracks = tracks
        self.board = board
        self.options = options
        self.limits = limits
        self.connections = connections
        self.ceiling = max(connections, ceiling ?? connections)
        self.stop = stop
        self.report = report
        mirrors = PieceMirrors(tracks)
    }

    /// How far the segments are, as last reported.
    var progress: SegmentProgress? { tally.withLock { $0.progress } }

    /// Every piece of the tracks once, in playing order: several tracks (a video and its audio)
    /// interleaved by time, so each feed of the remux gets its next piece early.
    static func pieces(of tracks: [StreamTrack]) -> [StreamPiece] { timedPieces(of: tracks).map(\.piece) }

    /// The pieces with where each starts and ends playing.
    private static func timedPieces(of tracks: [StreamTrack]) -> [(piece: StreamPiece, start: Double, end: Double)] {
        let timed = tracks.enumerated().flatMap { index, track in
            track.pieces.map { (start: $0.start, track: index, piece: $0.piece, end: $0.end) }
        }
        // Sorted by time, then track; the sort keeps each track's own order.
        let ordered = timed.enumerated().sorted { a, b in
            (a.element.start, a.element.track, a.offset) < (b.element.start, b.element.track, b.offset)
        }
        var seen = Set<StreamPiece>()
        return ordered.map(\.element).filter { seen.insert($0.piece).inserted }.map { ($0.piece, $0.start, $0.end) }
    }

    /// Fetches every piece not yet whole into the store. Returns when all are
    /// there or the pool was stopped (the caller tells which from `stop`); throws the first
    /// piece's failure (the others are stopped, every finished piece kept).
    func fetch(_ pieces: [StreamPiece]) throws(DownloadError) {
        let done = pieces.filter { store.location(of: $0) != nil }
        let bytes = done.reduce(Int64(0)) { $0 + (store.location(of: $1)?.length ?? 0) }
        let sections = Set(tracks.flatMap { $0.sections.map { StreamPiece(url: $0.url, range: $0.range) } })
        let timed = Self.timedPieces(of: tracks).filter { !sections.contains($0.piece) }
        let starts = Dictionary(timed.map { ($0.piece, $0.start) }, uniquingKeysWith: min)
        let ends = Dictionary(timed.map { ($0.piece, $0.end) }, uniquingKeysWith: max)
        tally.withLock { tally in
            tally.done = Set(done)
            tally.bytes = bytes
            tally.pending = pieces.filter { !tally.done.contains($0) }
            tally.starts = starts
            tally.ends = ends
            tally.fetching = Set(pieces)
            tally.order = Dictionary(pieces.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
            tally.trackOf = Dictionary(tracks.enumerated().flatMap { index, track in track.pieces.map { ($0.piece, index) } },
                                       uniquingKeysWith: min)
        }
        reportSegments()
        // Connections count against the host's, which every download of the process shares.
        let host = WebAddress.host(of: pieces.first?.url ?? "")
        var threads = (0..<min(connections, tally.withLock { $0.pending.count })).map { connection($0, host: host, pieces: pieces) }
        var growth = GrowthWatch(start: connections, ceiling: ceiling)
        while growth.isGrowing, !stop.isRaised {
            // Until every connection is done, or the next look.
            if tally.wait(until: { $0.running == 0 || $0.failure != nil }, timeout: GrowthWatch.burstSeconds) { break }
            let (held, left) = tally.withLock { (!$0.urgent.isEmpty, $0.pending.count) }
            let more = growth.look(now: monotonicSeconds(), received: received.withLock { $0 }, held: held,
                                   canSplit: left >= growth.target)
            let room = min(more, HostSlots.shared.room(host, limit: ceiling))
            threads += (0..<room).map { connection(threads.count + $0, host: host, pieces: pieces) }
        }
        threads.forEach { $0.join() }
        while let spare = spareThreads.withLock({ $0.popLast() }) { spare.join() }
        if let failure = tally.withLock({ $0.failure }) { throw failure }
    }

    /// One connection of the pool: a thread taking the next piece until none is left.
    private func connection(_ index: Int, host: String, pieces: [StreamPiece]) -> Worker {
        tally.withLock { $0.running += 1 }
        HostSlots.shared.take(host)
        return Worker.run(name: "fetchplay segments \(index)", stage: .downloads, in: nil) { [self] in
            defer {
                HostSlots.shared.release(host)
                tally.withLockAndNotify { $0.running -= 1 }
            }
            fetchEach(next, pieces: pieces) { [self] piece in shouldHold(piece, pieces: pieces) }
        }
    }

    /// Fetches each piece `take` gives until it gives none, on a handle of its own (the connection
    /// kept from piece to piece); the first failure stops the whole pool.
    private func fetchEach(_ take: () -> StreamPiece?, pieces: [StreamPiece], hold: ((StreamPiece) -> Bool)? = nil) {
        let fetch = PieceFetch(store: store, options: options, limits: limits, stop: stop, mirrors: mirrors, received: received)
        var handle: CurlEasy?
        while !stop.isRaised, let piece = take() {
            do throws(RunHalt) {
                let outcome = try fetch.fetch(piece, handle: &handle) { hold?(piece) ?? false }
                arrived(piece, outcome: outcome, pieces: pieces)
            } catch .failed(let error) {
                tally.withLockAndNotify { if $0.failure == nil { $0.failure = error } }
                // The others stop too, keeping what they have.
                stop.raise()
            } catch {
                return
            }
        }
    }

    /// The first pending piece that may be asked for now, waiting while every one left is a
    /// range of a resource whose first range is being asked.
    private func next() -> StreamPiece? {
        while !stop.isRaised {
            noteWantedTime()
            let taken = tally.withLock { tally -> (piece: StreamPiece?, wait: Bool, done: Int) in
                guard tally.failure == nil, !tally.pending.isEmpty else { return (nil, false, 0) }
                guard let index = tally.pending.firstIndex(where: { piece in
                    piece.range == nil || tally.honoursRanges[piece.url] == true
                        || (tally.honoursRanges[piece.url] == nil && !tally.probing.contains(piece.url))
                }) else { return (nil, true, tally.done.count) }
                // A piece that plays later than the first one waiting for its resource's answer
                // would take a connection the viewer needs for that one first (an audio segment
                // behind its file's first range, while the video's next ones take every
                // connection): the wait is one round trip.
                let starts = tally.starts
                if index > 0, starts[tally.pending[index]] ?? -1 > starts[tally.pending[0]] ?? -1 { return (nil, true, tally.done.count) }
                if !tally.urgent.isEmpty, !tally.urgent.contains(tally.pending[index]) { return (nil, true, tally.done.count) }
                let piece = tally.pending.remove(at: index)
                if piece.range != nil, tally.honoursRanges[piece.url] == nil { tally.probing.insert(piece.url) }
                return (piece, false, 0)
            }
            if let piece = taken.piece { return piece }
            guard taken.wait else { return nil }
            // Until a piece arrives (a range's answer, an urgent piece) or a failure; a pause or
            // a viewer's new wish is seen within 0.1 s.
            _ = tally.wait(until: { $0.done.count != taken.done || $0.failure != nil }, timeout: 0.1)
        }
        return nil
    }

    /// Takes the times a viewer asked for since the last look, if any: the pending pieces are
    /// put in order from there, and each track's piece playing at its time becomes urgent.
    private func noteWantedTime() {
        let times = board.takeWantedTimes()
        guard !times.isEmpty else { return }
        tally.withLock { tally in
            for time in times {
                for track in time.track.map({ [$0] }) ?? Array(tracks.indices) where tracks.indices.contains(track) {
                    tally.wantedAt[track] = time.seconds
                }
            }
            Self.order(&tally)
            tally.urgent = Set(tally.wantedAt.flatMap { neededAt($1, in: tracks[$0], done: tally.done) }).intersection(tally.fetching)
        }
    }

    /// The time a viewer wants `piece`'s track from, if they asked.
    private static func wanted(_ piece: StreamPiece, _ tally: Tally) -> Double? {
        tally.trackOf[piece].flatMap { tally.wantedAt[$0] }
    }

    /// Puts the pending pieces that still play at the wanted time first, in playing order, and
    /// those over before it after them. Each track's segment playing then counts: a video's and
    /// its audio's segments rarely start at the same instant.
    private static func order(_ tally: inout Tally) {
        let ends = tally.ends, order = tally.order, current = tally
        let part = { (piece: StreamPiece) in
            ends[piece].map { $0 > (wanted(piece, current) ?? -.infinity) + 0.001 } ?? true ? 0 : 1
        }
        tally.pending.sort { (part($0), order[$0] ?? .max) < (part($1), order[$1] ?? .max) }
    }

    /// Whether the transfer of a piece in flight waits: while a viewer waits for the pieces at
    /// the time they asked for, one that plays before that time. The first time a transfer is
    /// held with a viewer's piece still to start, a spare thread starts to fetch it (the held
    /// one's thread is inside its transfer).
    private func shouldHold(_ piece: StreamPiece, pieces: [StreamPiece]) -> Bool {
        noteWantedTime()
        let (hold, spare) = tally.withLock { tally -> (Bool, Bool) in
            // A resource's first range is never held: the others of it wait for its answer.
            guard !tally.urgent.isEmpty, !tally.urgent.contains(piece), let wanted = Self.wanted(piece, tally),
                  let end = tally.ends[piece], end <= wanted + 0.001, !tally.probing.contains(piece.url) else {
                tally.held.remove(piece)
                return (false, false)
            }
            tally.held.insert(piece)
            guard tally.spares < tally.held.count, tally.pending.contains(where: tally.urgent.contains) else { return (true, false) }
            tally.spares += 1
            return (true, true)
        }
        if spare { spareThreads.withLock { $0.append(spareConnection(pieces: pieces)) } }
        return hold
    }

    /// A thread fetching the viewer's pieces while others are held, ending when none is left to
    /// start.
    private func spareConnection(pieces: [StreamPiece]) -> Worker {
        Worker.run(name: "fetchplay segments spare", stage: .downloads, in: nil) { [self] in
            defer { tally.withLockAndNotify { $0.spares -= 1 } }
            fetchEach(nextUrgent, pieces: pieces)
        }
    }

    /// The first of the viewer's pieces not yet started, if any.
    private func nextUrgent() -> StreamPiece? {
        noteWantedTime()
        return tally.withLock { tally in
            guard tally.failure == nil, let index = tally.pending.firstIndex(where: tally.urgent.contains) else { return nil }
            return tally.pending.remove(at: index)
        }
    }

    /// The track's piece playing at `seconds`, and its init section, of those not in yet.
    private func neededAt(_ seconds: Double, in track: StreamTrack, done: Set<StreamPiece>) -> Set<StreamPiece> {
        let pieces = track.pieces
        guard let index = pieces.firstIndex(where: { $0.end > seconds + 0.001 && $0.end > $0.start }) else { return [] }
        var needed: Set = [pieces[index].piece]
        // Its init section is the piece before it, when that one plays nothing.
        if index > 0, pieces[index - 1].end == pieces[index - 1].start { needed.insert(pieces[index - 1].piece) }
        return needed.subtracting(done)
    }

    /// Counts a fetched piece (or, when its server sent the whole resource, every piece of it).
    private func arrived(_ piece: StreamPiece, outcome: PieceFetch.Outcome, pieces: [StreamPiece]) {
        let whole = outcome == .wholeResource
        let arriving = whole ? pieces.filter { $0.url == piece.url && $0.range != nil } : [piece]
        tally.withLockAndNotify { tally in
            if piece.range != nil {
                tally.probing.remove(piece.url)
                tally.honoursRanges[piece.url] = !whole
            }
            tally.urgent.subtract(arriving)
            for piece in arriving where tally.done.insert(piece).inserted {
                tally.pending.removeAll { $0 == piece }
                tally.bytes += store.location(of: piece)?.length ?? 0
            }
        }
        reportSegments()
    }

    /// Tells how many segments are whole, and their bytes, so "kept" and "ready to continue"
    /// read as for a file. Held while the listener hears it, so reports reach it in the order
    /// they count.
    private func reportSegments() {
        tally.withLock { tally in
            guard tally.done.count > tally.reported else { return }
            tally.reported = tally.done.count
            let segments = Self.progress(of: tracks, done: tally.done)
            tally.progress = segments
            report(.progress(DownloadProgress(bytesDone: tally.bytes, total: nil, segments: segments)))
        }
    }

    /// How far the segments are: counted over every track, the seconds those of the video and
    /// its audio share (their mean).
    static func progress(of tracks: [StreamTrack], done: Set<StreamPiece>) -> SegmentProgress {
        var count = 0, finished = 0
        var seconds = 0.0
        for track in tracks {
            for segment in track.segments {
                count += 1
                let section = track.section(of: segment).map { StreamPiece(url: $0.url, range: $0.range) }
                if done.contains(StreamPiece(url: segment.url, range: segment.range)), section.map(done.contains) ?? true {
                    finished += 1
                    seconds += segment.duration
                }
            }
        }
        let total = tracks.first?.duration ?? 0
        return SegmentProgress(done: finished, count: count, secondsDone: min(total, seconds / Double(max(1, tracks.count))),
                               secondsTotal: total)
    }
}

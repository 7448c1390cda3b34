import CCurl
import Foundation
import Localization
import ThreadKit

/// One attempt at a download, with one connection or several, on the calling (worker) thread.
///
/// The primary connection asks for the file (or, resuming, for its first missing byte on). When
/// its answer shows a length, a strong validator and ranges honoured, and the rest of the file
/// would still take a few seconds at the speed so far (`worthSeconds`), more connections fill
/// the file (`options.connections` at once, or with `growConnections` four at once, doubled
/// while those added raise the total rate, up to `options.connections`: `ConnectionGrowth`): a
/// free one takes a range nobody has, else
/// half of the largest range still to come (never a slice under `minimumSlice`). An extra
/// connection whose answer cannot fill its slice (a 200, a 416, an error status, a misaligned
/// range) ends the extra connections for good (`slicesRefused`) and gives its range back; one
/// that finds another version of the file starts the whole download over; one dropped by the
/// network is retried from its own next byte while the others go on.
///
/// The speed limits hold for all connections together: a connection whose piece finds no room
/// pauses, and the loop resumes it as soon as the limits allow, whatever they were changed to.
///
/// The attempt ends like a single request (`TransferOutcome`), so the task's retry rules stay
/// the same for one connection and for several.
final class RangeDownload {
    private let url: String
    private let partial: PartialFile
    private let options: DownloadOptions
    private let stop: StopSignal
    private let limits: SpeedLimits
    private let onBytes: (Int64, Int64?) -> Void
    private let maxConnections: Int
    private let host: String

    /// An extra connection was refused (or failed past its retries): later attempts use one.
    private(set) var slicesRefused = false
    private var active: [Transfer] = []
    private var lastProgress = 0.0
    /// The run's speed, all connections together; the run's progress reports measure it.
    private let meter: SpeedMeter
    /// When the next extra connection may open, after one failed (monotonic seconds).
    private var nextSliceAt = 0.0
    private var sliceBackoff: Backoff
    private var sliceFailures = 0
    /// The primary's range was cut into parts once.
    private var partitioned = false
    /// With connections that adapt (`options.growConnections`): how many the download has
    /// now, four at first, grown while each one added raised the total rate; nil:
    /// `maxConnections` at once.
    private var growth: GrowthWatch?
    /// The file's first boxes were looked at for an index at its end (`MP4Index`).
    private var headChecked = false
    /// The connection fetching that index; no slice opens before its answer is in.
    private var indexTransfer: Transfer?

    /// - Parameters:
    ///   - url: the request URL (credentials included).
    ///   - connections: at most this many at once; 1 for today's one-connection behaviour.
    ///   - limits: the speed limits all connections share (the download's own, the global one).
    ///   - meter: the run's speed, which `onBytes` measures.
    init(url: String, partial: PartialFile, options: DownloadOptions, connections: Int, limits: SpeedLimits,
         meter: SpeedMeter, stop: StopSignal, onBytes: @escaping (Int64, Int64?) -> Void) {
        self.url = url
        self.meter = meter
        self.limits = limits
        self.partial = partial
        self.options = options
        self.stop = stop
        self.onBytes = onBytes
        maxConnections = max(1, connections)
        host = WebAddress.host(of: url)
        sliceBackoff = Backoff(options)
        if options.growConnections, maxConnections > 1 { growth = GrowthWatch(ceiling: maxConnections) }
    }

    /// Connections this attempt may have at once now.
    private var connectionLimit: Int { growth?.target ?? maxConnections }

    /// Runs the attempt: from the partial's first missing byte when `resume`, else from 0.
    func run(resume: Bool) -> TransferOutcome {
        let multi: CurlMulti
        let primary: Transfer
        do {
            multi = try CurlMulti()
            let record = partial.record
            var range: (first: Int64, last: Int64?)?
            var end: Int64?
            if resume, let total = record.total {
                // Even a partial holding every byte asks the server: its 416 with the same
                // validator is what proves the file is whole.
                let gap = record.durable.gaps(upTo: total).first
                range = (gap?.lowerBound ?? total, nil)
                if let gap, gap.upperBound < total, maxConnections > 1 {
                    // Only the hole: the ranges after it are on disk, and the other holes go
                    // to other connections.
                    range = (gap.lowerBound, gap.upperBound - 1)
                    end = gap.upperBound
                }
            }
            primary = try Transfer(url: url, role: .primary, range: range, end: end, partial: partial,
                                   options: options, limits: limits, stop: stop) { [unowned self] in progressed() }
            try start(primary, on: multi)
        } catch {
            return .failed(error, gotBytes: false)
        }
        defer { for transfer in active { finish(transfer, on: multi) } }

        var pendingFailure: TransferOutcome?
        while true {
            if stop.isRaised { return stopped() }
            do {
                try multi.perform()
            } catch {
                return .failed(error, gotBytes: partial.length > 0)
            }
            let done = multi.finished()
            let ends = done + resumePaused(except: Set(done.map(\.handle)))
            // What this turn brought is counted as written before anything looks at the partial;
            // every connection's, even when one of them could not write.
            var failure: DownloadError?
            for transfer in active {
                do { try transfer.commitStored() } catch { failure = failure ?? error }
            }
            if let failure { return .failed(failure, gotBytes: partial.length > 0) }
            if partitioned { watchGrowth(total: primary.total) }
            for (handle, code) in ends {
                guard let transfer = active.first(where: { $0.easy.handle == handle }) else { continue }
                finish(transfer, on: multi)
                let outcome: TransferOutcome
                do {
                    // A redirect: the same connection again, at the next hop.
                    if try transfer.followRedirect(after: code) {
                        try start(transfer, on: multi)
                        continue
                    }
                    outcome = transfer.outcome(code)
                } catch {
                    outcome = .failed(error, gotBytes: transfer.gotBytes)
                }
                if let end = judge(outcome, of: transfer, primary: primary) { return end }
                if case .failed = outcome { pendingFailure = outcome }
            }
            if !headChecked { checkHead(on: multi, primary: primary) }
            if let offset = partial.board.takeWantedOffset() { fetchFirst(offset, on: multi, primary: primary) }
            // Ranges given back (a refused or dropped slice, a reader's seek) go to free connections.
            openSlices(on: multi, primary: primary)
            if active.isEmpty {
                return ended(primary: primary, pendingFailure: pendingFailure)
            }
            do {
                try multi.poll(milliseconds: pollMilliseconds(watchingSpeed: speedDecides(primary) && primary.gotBytes))
            } catch {
                return .failed(error, gotBytes: partial.length > 0)
            }
            // Bytes that came in the last burst before a stall are reported too, not only when
            // more bytes come.
            if partial.length != reportedLength { progressed() }
        }
    }

    // MARK: Outcomes

    /// A stop between turns keeps what came, first bytes awaiting the sniffer too.
    private func stopped() -> TransferOutcome {
        for transfer in active {
            do { try transfer.keepFirstBytes() } catch { return .failed(error, gotBytes: partial.length > 0) }
        }
        return .stopped
    }

    /// What one connection's end means for the attempt; nil: the attempt goes on.
    private func judge(_ outcome: TransferOutcome, of transfer: Transfer, primary: Transfer) -> TransferOutcome? {
        switch outcome {
        case .finished:
            // A primary with no known length ends the download when its body ends.
            return transfer.role == .primary && transfer.total == nil ? outcome : nil
        case .alreadyComplete, .restartFromZero, .stopped:
            return outcome
        case .sliceRefused(let reason):
            Log.warning("\(WebAddress.redacted(url)): \(reason); going on with one connection")
            slicesRefused = true
            growth?.stop()
            giveBack(transfer, to: primary)
            return nil
        case .failed(let error, _, _):
            let others = active.contains { $0 !== transfer }
            guard others, CurlError.isTransient(error, serverWasReached: true) else { return outcome }
            // The network dropped this one; the others go on, and its range opens again later.
            sliceFailures += 1
            // A server that starts failing gets no more connections.
            growth?.stop()
            if sliceFailures > options.maxRetries {
                slicesRefused = true
                return nil
            }
            Log.warning("\(WebAddress.redacted(url)): one connection failed (\(error.message)); retrying its range")
            nextSliceAt = monotonicSeconds() + sliceBackoff.take()
            giveBack(transfer, to: primary)
            return nil
        }
    }

    /// A range a connection did not finish goes back: to the primary when it ends where the
    /// primary stops (its request runs to the end of the file), else to whoever is free.
    private func giveBack(_ transfer: Transfer, to primary: Transfer) {
        guard transfer !== primary, active.contains(where: { $0 === primary }),
              let primaryEnd = primary.end, primaryEnd == transfer.next,
              let total = primary.total else { return }
        primary.end = min(transfer.end ?? total, primary.requestEnd ?? total)
    }

    /// The attempt once no connection is left.
    private func ended(primary: Transfer, pendingFailure: TransferOutcome?) -> TransferOutcome {
        let total = partial.identity.total
        if let total, partial.written.covers(total: total) {
            return .finished(finalURL: WebAddress.redacted(primary.easy.url))
        }
        if let pendingFailure { return pendingFailure }
        // Ranges given back after the primary passed them: the next attempt asks for them.
        // TRANSLATORS: %2$@ is the size in bytes, or ? when unknown.
        return .failed(.connectionLost(String(format: tr("%1$lld of %2$@ bytes arrived"), partial.length,
                                              total.map(String.init) ?? "?")),
                       gotBytes: partial.length > 0, answered: true)
    }

    // MARK: Connections

    private func start(_ transfer: Transfer, on multi: CurlMulti) throws(DownloadError) {
        try multi.add(transfer.easy)
        active.append(transfer)
        HostSlots.shared.take(host)
    }

    private func finish(_ transfer: Transfer, on multi: CurlMulti) {
        multi.remove(transfer.easy)
        active.removeAll { $0 === transfer }
        HostSlots.shared.release(host)
    }

    /// Opens extra connections while there is work worth one and a connection to spare.
    ///
    /// The first time, the primary's range is cut into equal parts by file position, one per
    /// connection (the primary keeps the first, with what it already has), so that connections
    /// that started together end together; later, free connections take gaps or halves.
    private func openSlices(on multi: CurlMulti, primary: Transfer) {
        // The file's start first, then an index at the end, then the parts between: opened
        // together, their requests would reach the server in any order.
        guard headChecked else { return }
        if let indexTransfer, indexTransfer.decision == nil, active.contains(where: { $0 === indexTransfer }) { return }
        guard maxConnections > 1, !slicesRefused, primary.allowsSlices, let total = primary.total,
              monotonicSeconds() >= nextSliceAt else { return }
        // A primary that runs to the file's end may finish it alone; one that stops at a hole's
        // end (a resume) leaves the other holes to other connections whatever the speed.
        if !partitioned, primary.end == nil, !worthMoreConnections(of: primary, total: total) { return }
        if !partitioned { growth?.opened(at: monotonicSeconds()) }
        var parts = partitioned ? [] : partition(primary, total: total)
        partitioned = true
        while active.count < connectionLimit, HostSlots.shared.hasRoom(host, limit: maxConnections),
              let work = parts.isEmpty ? nextWork(total: total) : parts.removeFirst() {
            do {
                let slice = try Transfer(url: url, role: .slice, range: (work.lowerBound, work.upperBound - 1),
                                         end: work.upperBound, partial: partial, options: options, limits: limits, stop: stop) {
                    [unowned self] in progressed()
                }
                try start(slice, on: multi)
            } catch {
                slicesRefused = true
                return
            }
        }
    }

    /// Whether the rest of the file would still take `worthSeconds` at the primary's average
    /// speed since its first bytes (false before that spans `speedWatch`): a download about to
    /// end gains less from more connections than their requests cost it and the server.
    ///
    /// The average, not the speed of the last few milliseconds: a line one connection fills
    /// still stalls for a moment (another process on the CPU, packets a round trip apart), and
    /// an empty window read as a slow line split a file that came within a second
    /// (`ConnectionGrowthNginxTests` on a busy machine). A server limiting each connection is
    /// still found within a tenth of a second: its first burst (a second's worth) weighs less
    /// with every quiet millisecond after it.
    private func worthMoreConnections(of primary: Transfer, total: Int64) -> Bool {
        guard let first = primary.firstBytesAt else { return false }
        let watched = monotonicSeconds() - first.time
        guard watched >= Self.speedWatch else { return false }
        let speed = Double(primary.next - first.offset) / watched
        let left = Double(total - partial.written.count)
        return speed <= 0 || left / speed >= Self.worthSeconds
    }

    /// Whether the primary's speed still decides if more connections open: before the first
    /// partition, for an answer that allows them and a primary that may fill the file alone.
    private func speedDecides(_ primary: Transfer) -> Bool {
        !partitioned && maxConnections > 1 && !slicesRefused && primary.end == nil && primary.allowsSlices
    }

    /// Asks `growth`, once the primary's range is cut, whether more connections open (its target
    /// rises, and `openSlices` opens them): the total rate over intervals, none measured while a
    /// connection still waits for its first bytes (its first burst comes with them).
    private func watchGrowth(total: Int64?) {
        guard partitioned, let total else { return }
        let canSplit = active.contains { $0.remaining(total: total) >= 2 * Self.minimumSlice }
        _ = growth?.look(now: monotonicSeconds(), received: partial.length,
                         held: active.contains { !$0.gotBytes }, canSplit: canSplit)
    }

    /// Once the file's first `headBytes` are written (or the primary ended without them), looks
    /// at them for an MP4 whose index (`moov`) is at its end, and fetches that first: a player
    /// needs it before any frame. Until then no slice opens, so the tail's request comes before
    /// those of the parts between.
    private func checkHead(on multi: CurlMulti, primary: Transfer) {
        let primaryRuns = active.contains { $0 === primary }
        guard primary.decision != nil || !primaryRuns else { return } // the answer is not in yet
        // Without slices nothing comes before anything else.
        guard let total = primary.total, primary.allowsSlices, maxConnections > 1 else {
            headChecked = true
            return
        }
        let wanted = min(Self.headBytes, total)
        let have = partial.written.ranges.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0
        guard have >= wanted || !primaryRuns else { return }
        headChecked = true
        guard have >= 16, let index = MP4Index.tailIndexOffset(head: partial.readBack(at: 0, count: Int(min(have, wanted))),
                                                              total: total) else { return }
        indexTransfer = fetchFirst(index, on: multi, primary: primary)
    }

    /// Bytes of the file's start looked at for an index at its end: the `ftyp` box and the
    /// `mdat` header fit in far fewer.
    static let headBytes: Int64 = 4096

    /// A reader wants the bytes from `offset` (a seek ahead): unless they are written or a
    /// connection is about to reach them, a connection starts there at once, the connection that
    /// had that range keeping the part before it. One more than `maxConnections` may run for it:
    /// the rest continues later.
    @discardableResult
    private func fetchFirst(_ offset: Int64, on multi: CurlMulti, primary: Transfer) -> Transfer? {
        guard maxConnections > 1, !slicesRefused, primary.allowsSlices, let total = primary.total,
              offset < total, !partial.written.contains(offset) else { return nil }
        let aligned = offset & ~0xFFFF
        var end = total
        if let owner = active.first(where: { $0.next <= offset && offset < ($0.end ?? total) }) {
            // Close enough: the connection gets there within half a second anyway.
            let perConnection = meter.bytesPerSecond / Double(max(1, active.count))
            let nearEnough = max(Self.nearEnough, Int64(perConnection / 2))
            guard offset - owner.next > nearEnough, aligned > owner.next else { return nil }
            end = owner.end ?? total
            owner.end = aligned
        } else if let gap = partial.written.gaps(upTo: total).first(where: { $0.contains(offset) }) {
            end = min(gap.upperBound, active.filter { $0.next > offset }.map(\.next).min() ?? total)
        }
        let from = max(aligned, partial.written.gaps(upTo: total).first { $0.contains(offset) }?.lowerBound ?? aligned)
        guard from < end else { return nil }
        do {
            let slice = try Transfer(url: url, role: .slice, range: (from, end - 1), end: end, partial: partial,
                                     options: options, limits: limits, stop: stop) { [unowned self] in progressed() }
            try start(slice, on: multi)
            return slice
        } catch {
            slicesRefused = true
            return nil
        }
    }

    /// The primary's range from its first byte, in equal parts of at least `minimumSlice` (on
    /// 64 KiB boundaries), as many as connections can open now (other downloads from the host
    /// may hold some); the primary is cut to the first, the others are returned.
    private func partition(_ primary: Transfer, total: Int64) -> [Range<Int64>] {
        let from = primary.start, to = primary.end ?? total
        let free = min(connectionLimit - active.count, HostSlots.shared.room(host, limit: maxConnections))
        let count = min(Int64(1 + max(0, free)), (to - from) / Self.minimumSlice)
        guard count > 1 else { return [] }
        let size = ((to - from) / count) & ~0xFFFF
        let bounds = (0..<count).map { from + $0 * size } + [to]
        // A primary already past its part (a fast first burst) is split by halves instead.
        guard primary.next < bounds[1] else { return [] }
        primary.end = bounds[1]
        return (1..<Int(count)).map { bounds[$0]..<bounds[$0 + 1] }
    }

    /// A range that no connection has and that is not written yet; else the second half of the
    /// largest range still to come, taken from the connection that has it.
    private func nextWork(total: Int64) -> Range<Int64>? {
        var claimed = partial.written
        for transfer in active { claimed.insert(transfer.next..<(transfer.end ?? total)) }
        if let gap = claimed.gaps(upTo: total).first { return gap }
        guard let largest = active.max(by: { $0.remaining(total: total) < $1.remaining(total: total) }),
              largest.remaining(total: total) >= 2 * Self.minimumSlice else { return nil }
        let end = largest.end ?? total
        // The middle, on a 64 KiB boundary: requests of whole pages.
        let middle = (largest.next + largest.remaining(total: total) / 2) & ~0xFFFF
        guard middle > largest.next, middle < end else { return nil }
        largest.end = middle
        return middle..<end
    }

    // MARK: Speed limits

    // libcurl pauses a connection the limits have no room for (`Transfer`); the loop resumes
    // the longest waiting ones first and polls no longer than until there is room again.

    /// Resumes the connections the speed limits paused, if they have room now; returns those
    /// that ended on the piece libcurl handed over then.
    private func resumePaused(except done: Set<UnsafeMutableRawPointer>) -> [(handle: UnsafeMutableRawPointer, code: CURLcode)] {
        var ended: [(UnsafeMutableRawPointer, CURLcode)] = []
        // The longest waiting first, so that every connection gets its turn.
        let paused = active.filter { $0.isPaused && !done.contains($0.easy.handle) }
        for transfer in paused.sorted(by: { $0.pausedAt < $1.pausedAt }) {
            guard limits.delay(now: monotonicSeconds()) == 0 else { break }
            let code = transfer.resume()
            if code != CURLE_OK { ended.append((transfer.easy.handle, code)) }
        }
        return ended
    }

    /// How long to wait for the network: 100 ms at most, so that a stop (and a raised limit) is
    /// seen soon; while the primary's speed decides, no longer than `speedWatch` (a server that
    /// sends in bursts leaves the socket quiet between them); and no longer than until the
    /// limits have room for a paused connection.
    private func pollMilliseconds(watchingSpeed: Bool) -> Int32 {
        let most: Int32 = watchingSpeed ? Int32(Self.speedWatch * 1000) : 100
        guard active.contains(where: \.isPaused) else { return most }
        let seconds = limits.delay(now: monotonicSeconds())
        return Int32(min(Double(most), max(1, (seconds * 1000).rounded(.up))))
    }

    // MARK: Progress

    /// The length the last progress report gave.
    private var reportedLength: Int64 = 0

    private func progressed() {
        let now = monotonicSeconds()
        guard now - lastProgress >= options.progressInterval else { return }
        lastProgress = now
        reportedLength = partial.length
        onBytes(partial.length, partial.identity.total)
    }

    // MARK: Measures

    /// Seconds the rest of the file must still take at the primary's speed before more open.
    static let worthSeconds = 2.0
    /// Seconds the primary's average speed must span before it decides, and the loop's longest
    /// wait while it may: short enough that connections to a server limiting each one open
    /// soon after the first. (nginx releases a limited connection's bytes at whole-second
    /// ticks: slices that started 20 ms after the first one sometimes fell into the next second
    /// and ended half a second later.)
    static let speedWatch = 0.005
    /// Bytes per connection below which another connection costs more than it brings.
    static let minimumSlice: Int64 = 2 << 20
    /// Bytes ahead of a connection that a reader may always want without a connection of its
    /// own (more when the connection brings more in half a second).
    static let nearEnough: Int64 = 64 << 10
}

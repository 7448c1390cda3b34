import CCurl
import Foundation
import Localization
import ThreadKit

/// How one connection's request ended.
enum TransferOutcome: Sendable, Equatable {
    /// The body ended, or the connection wrote all of its slice.
    case finished(finalURL: String?)
    /// The server's answer proves the local bytes are already the whole file (416).
    case alreadyComplete
    /// The answer could not continue the partial; ask again from byte 0.
    case restartFromZero(reason: String)
    /// An extra connection's answer cannot fill its slice (no ranges, a 416, an error status):
    /// the download goes on with fewer connections.
    case sliceRefused(reason: String)
    /// Pause or cancel was asked for.
    case stopped
    /// `answered`: the server accepted the request with a usable 200 or 206 before it failed.
    case failed(DownloadError, gotBytes: Bool, answered: Bool = false)
}

/// One connection: one HTTP request and the part of its body that this connection writes into
/// the partial, driven by `RangeDownload`'s libcurl multi handle on the download's worker thread.
///
/// The *primary* connection of an attempt asks for the whole file or, when resuming, for
/// `bytes=N-`, and its answer is judged by the resume table (`ResumePlan.decide`). A *slice*
/// asks for `bytes=A-B` of the same file and is used only for an aligned 206 with the recorded
/// validator (`ResumePlan.decideSlice`). Either writes from `next` up to `end`, which another
/// connection may move closer when it takes over this one's tail.
///
/// Under a speed limit the write callback pauses the transfer (`CURL_WRITEFUNC_PAUSE`, libcurl
/// keeps the piece) when the limits have no room for it, and `RangeDownload` resumes it once they
/// do.
///
/// Its request is the engine's one HTTP client (`HTTPRequest`), with this connection as the body.
final class Transfer: HTTPBody {
    enum Role: Sendable, Equatable { case primary, slice }

    let role: Role
    /// The first byte asked for (0 with no `Range` for a primary that starts afresh).
    let start: Int64
    /// Where this connection stops writing, exclusive; nil: the end of the file.
    var end: Int64?
    /// One past the last byte asked for; nil: to the end of the file.
    let requestEnd: Int64?
    /// The offset of the next byte this connection writes.
    private(set) var next: Int64
    private(set) var decision: ResumeDecision?
    /// The whole file's length, once the answer is judged.
    private(set) var total: Int64?
    /// When its first body bytes came (monotonic seconds) and the offset they were written at:
    /// its average speed since then decides whether a primary gets more connections. Taken in
    /// the write itself: on loopback one turn of the loop can bring many megabytes.
    private(set) var firstBytesAt: (time: Double, offset: Int64)?
    var gotBytes: Bool { firstBytesAt != nil }
    /// The request, made once the rest is set (it needs this connection as its body).
    private(set) var request: HTTPRequest!
    var easy: CurlEasy { request.easy }
    private var response: ResponseHead { request.response }
    /// The speed limits held a piece back; `resume()` lets it through.
    private(set) var isPaused = false
    /// When it last paused (monotonic seconds): the longest waiting resumes first.
    private(set) var pausedAt = 0.0

    /// The download's link: the first request's URL, whose host its context's host-bound
    /// headers are for.
    private let url: String
    private let options: DownloadOptions
    private let partial: PartialFile
    private let stop: StopSignal
    private let onWrite: () -> Void
    private let limits: SpeedLimits
    /// An error found inside a callback, which then aborts the transfer.
    private var callbackError: DownloadError?
    /// This connection wrote up to `end` and stopped itself there.
    private var reachedEnd = false
    /// The write callback refused a piece; it refuses all that follow.
    private var refused = false
    /// Bytes before `next` taken from the body but not counted as written (`commitStored()`).
    /// libcurl hands each socket read over in pieces of 16 KiB; a write, a range update, a
    /// progress check and a checkpoint check for each piece cost fetchplay more CPU than curl
    /// on a fast download. So the pieces of one turn of the multi handle are gathered in `batch`,
    /// then written and counted together when the turn's callbacks are over: between turns
    /// nothing is held or uncounted. They belong to the partial's current data file, which is
    /// theirs: it changes only at the primary's first answer (`openFresh`), before any other
    /// connection exists.
    private var uncommitted: Int64 = 0
    private var batch: WriteBatch?
    /// A body's first bytes while they await the sniffer (`judgeFirstBytes()`), until
    /// `MediaSniffer.enough` came or the body ended: a server that trickles its start is judged
    /// on enough bytes. Meanwhile they are written but not counted, so no reader, checkpoint or
    /// record sees them, and a page is refused with nothing of it kept. A stop counts them as
    /// they are, unjudged (`keepFirstBytes()`), and the next run judges them: it starts with them
    /// read back from the partial. Nil when nothing awaits the sniffer.
    private var firstBytes: [UInt8]?
    private var judgedFirstBytes = false

    /// - Parameters:
    ///   - range: the first byte and, for a slice, the last byte asked for; nil: no `Range`.
    ///   - limits: the speed limits every piece of the body is charged to.
    ///   - onWrite: called after body bytes are counted as written (`commitStored()`).
    init(url: String, role: Role, range: (first: Int64, last: Int64?)?, end: Int64?, partial: PartialFile,
         options: DownloadOptions, limits: SpeedLimits, stop: StopSignal, onWrite: @escaping () -> Void) throws(DownloadError) {
        self.url = url
        self.options = options
        self.role = role
        start = range?.first ?? 0
        requestEnd = range?.last.map { $0 + 1 }
        next = start
        self.end = end
        self.partial = partial
        self.stop = stop
        self.onWrite = onWrite
        self.limits = limits
        let version = role == .primary ? partial.record : partial.identity
        let rangeLines = range.map { HTTPRequest.rangeLines(from: $0.first, through: $0.last, validator: version.validator) } ?? []
        request = try HTTPRequest(url: url, lines: rangeLines, options: options, stop: stop, body: self)
        // Under a speed limit, reads of one piece (16 KiB) instead of 256 KiB: Linux sizes a
        // socket's receive buffer by what each round trip's reads take, and after large reads
        // lets the server send about 1 MiB ahead per connection at full speed (measured on
        // loopback: 0.15 MiB ahead with these reads).
        let readSize = limits.lowestRate == nil ? 256 * 1024 : Int(CURL_MAX_WRITE_SIZE)
        try easy.set(CURLOPT_BUFFERSIZE, readSize)
        // One piece per read under a limit: nothing to gather then.
        batch = readSize > Int(CURL_MAX_WRITE_SIZE) ? WriteBatch(partial: partial, capacity: readSize) : nil
    }

    /// A piece of the answer's body (`HTTPBody`): held back when the speed limits have no room
    /// for it, else written.
    func take(_ piece: UnsafeRawBufferPointer, of answer: ResponseHead) -> Int {
        if mustWait(for: piece.count) { return Int(CURL_WRITEFUNC_PAUSE) }
        return take(piece) ? piece.count : 0
    }


    /// Bytes this connection still has to write, when its end is known.
    func remaining(total: Int64) -> Int64 { (end ?? total) - next }

    /// Decides, once per response, what its body means; opens the file accordingly.
    private func decideIfNeeded() -> ResumeDecision {
        if let decision { return decision }
        let record = partial.record
        let made = role == .primary
            ? ResumePlan.decide(offset: start, record: record, response: response)
            : ResumePlan.decideSlice(start: start, record: partial.identity, response: response)
        decision = made
        do {
            switch made {
            case .append:
                total = role == .primary ? record.total : partial.identity.total
                guard role == .primary else { break }
                let durable = try partial.openForAppend()
                if durable.isEmpty, start > 0 {
                    // The partial was shorter than its record: it cannot be continued.
                    decision = .restartFromZero(reason: "the partial lost bytes on disk")
                    break
                }
                if record.unjudged == true {
                    // First bytes a pause kept: judged with the ones that come now.
                    let wanted = Int(min(start, Int64(MediaSniffer.enough)))
                    let kept = partial.readBack(at: 0, count: wanted)
                    guard kept.count == wanted else {
                        decision = .restartFromZero(reason: "the partial's first bytes cannot be judged")
                        break
                    }
                    firstBytes = kept
                }
                try checkRoom(for: (total ?? start) - durable.count)
                if let total { partial.reserve(total: total) }
            case .fresh(let newTotal, let etag, let lastModified):
                // The new file replaces the old partial once it has passed it.
                try checkRoom(for: (newTotal ?? 0) - partial.durableBytes)
                total = newTotal
                // The whole file from byte 0, whatever was asked for.
                next = 0
                var identity = partial.record
                identity.total = newTotal
                identity.etag = etag
                identity.lastModified = lastModified
                identity.failure = nil
                identity.contentType = response["content-type"]
                identity.sniffedType = nil
                identity.unjudged = true
                // The name the browser would have used wins over the server's.
                if options.context.suggestedName == nil, let name = response.suggestedName { identity.displayName = name }
                try partial.openFresh(identity)
                if let newTotal { partial.reserve(total: newTotal) }
            case .restartFromZero, .complete, .sliceRefused, .fail:
                break
            }
        } catch {
            callbackError = error
            decision = .fail(error)
        }
        return decision!
    }

    /// Whether this answer lets more connections fetch other ranges of the same file: a length,
    /// a strong validator, and ranges honoured (a 206, or a 200 saying `Accept-Ranges: bytes`).
    var allowsSlices: Bool {
        // None before the first bytes are judged: nothing of a page may count.
        guard let decision, firstBytes == nil, total != nil, partial.identity.validator != nil else { return false }
        switch decision {
        case .append: return true
        case .fresh: return response["accept-ranges"]?.lowercased().contains("bytes") == true
        default: return false
        }
    }

    /// Fails at once when the bytes still to come cannot fit on the disk, instead of filling it
    /// (or waiting for the 10^18 bytes a hostile `Content-Length` promises).
    private func checkRoom(for bytes: Int64) throws(DownloadError) {
        guard bytes > 0, let free = FileIO.availableBytes(in: partial.cache.partialDirectory), bytes > free else { return }
        throw .tooLarge(bytes: bytes, available: free)
    }

    /// Whether the speed limits hold back a piece of `bytes` (libcurl then keeps it and pauses);
    /// when they let it through, it is charged to them.
    private func mustWait(for bytes: Int) -> Bool {
        guard !limits.limits.isEmpty, !refused else { return false }
        let now = monotonicSeconds()
        if limits.take(bytes, now: now) { return false }
        isPaused = true
        pausedAt = now
        return true
    }

    /// Lets the piece the limits held back through, once they have room; libcurl delivers it
    /// from inside this call (which may pause again). A code other than `CURLE_OK` ends the
    /// transfer: its outcome is then `outcome(code)`.
    func resume() -> CURLcode {
        isPaused = false
        return easy.resume()
    }

    /// Writes a piece of the body; false aborts the transfer, and refuses every later piece:
    /// after a refusal inside `resume()` libcurl drops what it kept and could deliver bytes after
    /// that gap, which must never be written at `next`.
    private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !refused else { return false }
        let taken = receive(bytes)
        refused = !taken
        return taken
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch decideIfNeeded() {
        case .append, .fresh:
            break
        default:
            return false
        }
        if firstBytes == nil, next == 0, !judgedFirstBytes, case .fresh = decision { firstBytes = [] }
        guard var held = firstBytes else { return write(bytes) }
        // Written, not counted, until the sniffer has enough of the body's start.
        held.append(contentsOf: bytes)
        firstBytes = held
        let goOn = write(bytes)
        guard callbackError == nil, held.count >= MediaSniffer.enough else { return goOn }
        return judgeFirstBytes() && goOn
    }

    /// Judges the first bytes; true when they are media, which then count. A document's bytes
    /// never count: nothing of a page is kept.
    private func judgeFirstBytes() -> Bool {
        guard let held = firstBytes else { return true }
        firstBytes = nil
        judgedFirstBytes = true
        let kind = held.withUnsafeBytes { MediaSniffer.document(contentType: response["content-type"], firstBytes: $0) }
        if let kind {
            callbackError = .notAVideo(kind)
            uncommitted = 0
            return false
        }
        partial.noteJudged(mediaType: held.withUnsafeBytes { MediaSniffer.mediaType(firstBytes: $0) })
        return true
    }

    /// Counts the first bytes held for the sniffer as they are: after a judgement, or unjudged
    /// when a stop or a cut came before enough of them (the record says so, and the next run
    /// judges them), so a server that trickles its start loses nothing to a pause.
    func keepFirstBytes() throws(DownloadError) {
        firstBytes = nil
        try commitStored()
    }

    /// Stores a piece of the body at `next`, within this connection's end and the total.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let room = end.map { $0 - next } ?? Int64(bytes.count)
        let count = Int(max(0, min(Int64(bytes.count), room)))
        if let total, next + Int64(count) > total {
            callbackError = .badResponse(String(format: tr("more bytes than the announced %1$lld"), total))
            return false
        }
        do {
            try store(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        } catch {
            callbackError = error
            return false
        }
        if firstBytesAt == nil, count > 0 { firstBytesAt = (monotonicSeconds(), next) }
        next += Int64(count)
        uncommitted += Int64(count)
        if let end, next >= end {
            // The rest of this body belongs to another connection (or is already written).
            reachedEnd = true
            return false
        }
        return !stop.isRaised
    }

    /// Puts a piece that belongs at `next` into the file, through the batch when there is one.
    private func store(_ piece: UnsafeRawBufferPointer) throws(DownloadError) {
        guard let batch else { return try partial.store(piece, at: next) }
        if batch.take(piece, at: next) { return }
        try flushBatch()
        if !batch.take(piece, at: next) { try partial.store(piece, at: next) }
    }

    /// Writes what the batch holds: the bytes just before `next`. When that fails they are in
    /// no file, so `next` and the uncounted bytes step back over them.
    private func flushBatch() throws(DownloadError) {
        guard let batch, batch.held > 0 else { return }
        let held = Int64(batch.held)
        do {
            try batch.flush()
        } catch {
            next -= held
            uncommitted -= held
            // Its end is not reached after all: the bytes up to it are in no file.
            reachedEnd = false
            throw error
        }
    }

    /// Follows the answer just ended when it is a redirect: aims the handle at the next hop
    /// (with the headers allowed there) and returns true; the caller adds it to the multi
    /// handle again. False when the answer is no redirect; throws when the redirect may not be
    /// followed.
    func followRedirect(after code: CURLcode) throws(DownloadError) -> Bool {
        guard callbackError == nil else { return false }
        return try request.followRedirect(after: code)
    }

    /// Writes the bytes taken since the last commit, then counts them as written (and reports
    /// them). What reached the file before a write failed still counts; the failure is thrown
    /// after.
    func commitStored() throws(DownloadError) {
        var failure: DownloadError?
        do { try flushBatch() } catch { failure = error }
        // First bytes awaiting the sniffer are written, not counted.
        if uncommitted > 0, firstBytes == nil {
            let range = next - uncommitted..<next
            uncommitted = 0
            try partial.commit(range)
            onWrite()
        }
        if let failure { throw failure }
    }

    /// What the request came to, once libcurl is done with it (`code`).
    func outcome(_ code: CURLcode) -> TransferOutcome {
        if firstBytes != nil, callbackError == nil, code != CURLE_OK || judgeFirstBytes() {
            // A body that ended before `MediaSniffer.enough` bytes is judged whole. One stopped
            // or cut short keeps them, unjudged: the next attempt asks for the rest and judges.
            do { try keepFirstBytes() } catch { callbackError = error }
        }
        if reachedEnd { return .finished(finalURL: WebAddress.redacted(easy.url)) }
        if let callbackError { return .failed(callbackError, gotBytes: gotBytes) }
        if stop.isRaised { return .stopped }
        if code == CURLE_OUT_OF_MEMORY, response.status != 0, !gotBytes {
            // libcurl 7.88 reports a header past its limit (100 KiB) as "Out of memory".
            return .failed(.badResponse(tr("it sent more header data than a client can read")), gotBytes: false)
        }
        // No usable answer at all (refused, a redirect libcurl would not follow): libcurl's error.
        let answered = response.status != 0 && !(300..<400).contains(response.status)
        if code != CURLE_OK, code != CURLE_WRITE_ERROR, !answered {
            return .failed(request.failure(code), gotBytes: gotBytes)
        }
        // A body that was empty, or never reached the write callback (416, errors), is decided here.
        switch decideIfNeeded() {
        case .restartFromZero(let reason): return .restartFromZero(reason: reason)
        case .sliceRefused(let reason): return .sliceRefused(reason: reason)
        case .complete: return .alreadyComplete
        case .fail(let error): return .failed(error, gotBytes: gotBytes)
        case .append, .fresh: break
        }
        if let callbackError { return .failed(callbackError, gotBytes: gotBytes) }
        // Here the answer was a usable 200 or 206.
        guard code == CURLE_OK else {
            return .failed(request.failure(code), gotBytes: gotBytes,
                           answered: true)
        }
        let expectedEnd = end ?? total
        if let expectedEnd, next != expectedEnd {
            return .failed(.connectionLost(String(format: tr("the body ended at %1$lld of %2$lld bytes"), next, expectedEnd)),
                           gotBytes: gotBytes, answered: true)
        }
        return .finished(finalURL: WebAddress.redacted(easy.url))
    }
}

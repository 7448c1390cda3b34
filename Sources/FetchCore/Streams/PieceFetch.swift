import CCurl
import Foundation
import Localization
import ThreadKit

/// One piece of a presentation fetched into its store through the engine's one HTTP client,
/// on a pool thread's own handle (so the connection to the host is kept from piece to piece).
///
/// A range is asked for with `Range`; the answer must be a 206 from that byte on, of that
/// length. A server that answers a range with the whole file (200) gets that file kept whole,
/// once, as the piece's resource (`StreamPiece.whole`): its other ranges are cut from it. A
/// piece whose first bytes are a page, a program or an archive is refused, nothing kept; one
/// longer or shorter than announced is an error. Transient failures and failing statuses are
/// tried again with the engine's backoff; a connection dropped mid-piece goes on from the bytes
/// it wrote (`Range` with `If-Range`, when the answer had a validator). A piece cut short by a
/// pause or a quit is noted in the store with its bytes and validator, and the next fetch of it
/// continues from there, in this run or a later one. While its pool needs the line for a piece a
/// viewer waits for (`hold`), a piece's transfer is paused, its connection kept open: it goes on
/// from the same answer once the viewer's piece is in, every byte asked for once. When a host fails (it
/// refuses, cannot be reached or answers 5xx), the same piece is asked at once of the next
/// place that holds it (`PieceMirrors`), and the place that answered is kept for the rest.
struct PieceFetch {
    let store: SegmentStore
    let options: DownloadOptions
    let limits: SpeedLimits
    let stop: StopSignal
    var mirrors = PieceMirrors([])
    /// Where the bytes received are counted as they arrive (a pool's growth), if anywhere.
    var received: Locked<Int64>?

    /// What a fetch brought.
    enum Outcome: Equatable {
        /// The piece is whole in the store.
        case piece
        /// Its server sent the whole resource instead: it is whole in the store.
        case wholeResource
    }

    /// Attempts per piece for the failures the connection's own nature does not explain (a
    /// status, an unusable answer, a refused connection): a segment that fails now (a 404 while
    /// a server updates) may be there a moment later.
    static let attempts = 3

    /// Fetches `piece` into the store, continuing what an earlier fetch left. `hold` is asked as
    /// the bytes arrive, and about once a second while held: true pauses the transfer.
    func fetch(_ piece: StreamPiece, handle: inout CurlEasy?, hold: @escaping () -> Bool = { false }) throws(RunHalt) -> Outcome {
        var backoff = Backoff(options)
        var failures = 0
        let links = mirrors.links(for: piece.url)
        var place = 0
        var kept = store.kept(piece)
        if kept?.isWhole == true {
            do throws(DownloadError) {
                try store.finishSetAside(piece)
                return .piece
            } catch {
                throw .failed(error)
            }
        }
        while true {
            do throws(DownloadError) {
                let outcome = try once(piece, link: try WebAddress.validate(links[place]), handle: &handle, kept: &kept, hold: hold)
                mirrors.answered(links[place], for: piece.url)
                return outcome
            } catch .notAVideo(let kind) {
                // Not tried again: the engine's sentence speaks of the link a person entered;
                // this is a file the playlist names.
                throw .failed(.badResponse(String(format: tr("%1$@, listed in the playlist, is %2$@, not media"),
                                                  RelativeLink.quotedName(of: piece.url), kind.article)))
            } catch {
                if stop.isRaised {
                    if let kept { store.keep(piece, kept) }
                    throw .stopped
                }
                if place + 1 < links.count, error.isHostFailure {
                    Log.warning("\(WebAddress.redacted(links[place])): \(error.message) Trying \(WebAddress.redacted(links[place + 1])).")
                    place += 1
                    kept = nil
                    continue
                }
                // Every place failed: the next attempt starts again from the first.
                place = 0
                kept = links.count > 1 ? nil : kept
                failures += 1
                let again = CurlError.isTransient(error, serverWasReached: true) ? failures <= options.maxRetries
                    : Self.worthAnotherAttempt(error) && failures < Self.attempts
                guard again else { throw .failed(error) }
                Log.warning("\(WebAddress.redacted(piece.url)): \(error.message) Trying again in \(backoff.seconds) s.")
                if backoff.wait(on: stop) { throw .stopped }
            }
        }
    }

    private static func worthAnotherAttempt(_ error: DownloadError) -> Bool {
        switch error {
        case .httpStatus, .connectionRefused, .badResponse: true
        default: false
        }
    }

    private func once(_ piece: StreamPiece, link: String, handle: inout CurlEasy?, kept: inout PieceBody.Kept?,
                      hold: @escaping () -> Bool) throws(DownloadError) -> Outcome {
        let body = PieceBody(piece: piece, store: store, limits: limits, stop: stop, kept: kept, hold: hold, received: received)
        defer {
            kept = body.kept
            body.close()
        }
        let first = (piece.range?.offset ?? 0) + (kept?.written ?? 0)
        let lines = piece.range != nil || first > 0
            ? HTTPRequest.rangeLines(from: first, through: piece.range.map { $0.end - 1 }, validator: kept?.validator) : []
        let request = try HTTPRequest(url: link, lines: lines, options: options, stop: stop, body: body, reusing: handle)
        handle = request.easy
        if limits.lowestRate != nil { try request.easy.set(CURLOPT_BUFFERSIZE, Int(CURL_MAX_WRITE_SIZE)) }
        var code: CURLcode
        repeat { code = request.easy.perform() } while try request.followRedirect(after: code)
        if let failure = body.failure { throw failure }
        guard code == CURLE_OK else { throw request.failure(code) }
        return try body.finish(request.response)
    }
}

/// A piece's answer written into its file in the store as it arrives.
final class PieceBody: HTTPBody {
    /// What an attempt cut short leaves for the next: the bytes of the piece's own file from its
    /// start, and the answer's validator that must still hold for them to be continued.
    struct Kept: Equatable {
        var written: Int64
        var validator: String
        /// The piece's whole length, when its answer told it: a piece set aside with every byte
        /// (a pause just before its answer ended) is finished without asking again.
        var total: Int64?

        var isWhole: Bool { total == written }
    }

    let piece: StreamPiece
    let store: SegmentStore
    let limits: SpeedLimits
    let stop: StopSignal
    private(set) var failure: DownloadError?
    /// The store's file it goes into (the piece's, or its whole resource's), once the head is read.
    private var file: (id: String, fd: Int32, expected: Int64?)?
    private var contentType: String?
    private var written: Int64 = 0
    /// The first bytes, until the sniffer has judged them.
    private var head: [UInt8]? = []
    /// What the last attempt left, which this one continues when its answer agrees.
    private(set) var kept: Kept?
    private var validator: String?
    /// Asked before each write, and while held: true pauses the transfer.
    private let hold: () -> Bool
    /// The transfer is paused by `hold`; libcurl keeps the piece it offered.
    private var isHeld = false

    /// Where the bytes received are counted, if anywhere.
    private let received: Locked<Int64>?

    init(piece: StreamPiece, store: SegmentStore, limits: SpeedLimits, stop: StopSignal, kept: Kept?, hold: @escaping () -> Bool,
         received: Locked<Int64>? = nil) {
        self.received = received
        self.piece = piece
        self.store = store
        self.limits = limits
        self.stop = stop
        self.kept = kept
        self.hold = hold
    }

    func take(_ bytes: UnsafeRawBufferPointer, of answer: ResponseHead) -> Int {
        do throws(DownloadError) {
            if file == nil { try open(answer) }
            // Held once judged: a page refused at once never waits.
            if head == nil, hold() {
                isHeld = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            isHeld = false
            try waitForRoom(bytes.count)
            guard let file else { return 0 }
            if let expected = file.expected, written + Int64(bytes.count) > expected {
                throw .badResponse(String(format: tr("more bytes than the announced %1$lld"), expected))
            }
            try FileIO.writeAll(file.fd, bytes, path: store.path(of: file.id))
            written += Int64(bytes.count)
            received?.withLock { $0 += Int64(bytes.count) }
            if head != nil {
                head! += bytes.prefix(MediaSniffer.enough - head!.count)
                if head!.count >= MediaSniffer.enough { try judge() }
            }
            // Only judged bytes are worth continuing.
            if head == nil, file.id == piece.id, let validator { kept = Kept(written: written, validator: validator, total: file.expected) }
            return bytes.count
        } catch {
            failure = failure ?? error
            return 0
        }
    }

    /// Lets a held transfer go on once `hold` says so. libcurl hands over the piece it kept from
    /// inside `resume`, to `take`, which may hold it again.
    func progressed(_ easy: CurlEasy) {
        guard isHeld, !hold() else { return }
        isHeld = false
        _ = easy.resume()
    }

    /// Chooses the file from the answer's head: the piece's for a 200 to a whole piece or a
    /// 206 from the range's start, the whole resource's for a 200 to a range.
    private func open(_ answer: ResponseHead) throws(DownloadError) {
        contentType = answer["content-type"]
        validator = answer.strongETag ?? answer.lastModified
        let offset = piece.range?.offset ?? 0
        let continued = kept?.written ?? 0
        switch (answer.status, piece.range) {
        case (200, nil):
            file = (piece.id, try store.create(piece.id), answer.contentLength)
        case (200, .some):
            file = (piece.whole.id, try store.create(piece.whole.id), answer.contentLength)
        case (206, _) where continued > 0 && answer.contentRange?.start == offset + continued:
            // The rest of a piece an attempt cut short: after its bytes, judged already.
            let path = store.path(of: piece.id)
            let fd = try FileIO.open(path, O_WRONLY)
            do throws(DownloadError) {
                // Nothing after the bytes kept: a write cut short may have left some.
                try FileIO.truncate(fd, to: continued, path: path)
                try FileIO.seek(fd, to: continued, path: path)
            } catch {
                FileIO.close(fd)
                throw error
            }
            written = continued
            head = nil
            let total = piece.range.map(\.length) ?? answer.contentRange?.total
            file = (piece.id, fd, total)
        case (206, .some(let range)) where continued == 0:
            guard answer.contentRange?.start == range.offset else {
                throw .badResponse(tr("a partial answer for another range than the one asked for"))
            }
            file = (piece.id, try store.create(piece.id), range.length)
        case (206, _):
            throw .badResponse(tr("a partial answer for another range than the one asked for"))
        default:
            throw .httpStatus(code: answer.status, reason: answer.reasonPhrase)
        }
    }

    /// Holds the piece back while the speed limits have no room for it (this thread's own
    /// transfer waits; the others go on).
    private func waitForRoom(_ count: Int) throws(DownloadError) {
        guard !limits.limits.isEmpty else { return }
        while !limits.take(count, now: monotonicSeconds()) {
            if stop.wait(seconds: max(0.001, limits.delay(now: monotonicSeconds()))) { throw .other("stopped") }
        }
    }

    /// A page, a program or an archive listed as a segment is refused, whatever its label.
    private func judge() throws(DownloadError) {
        guard let bytes = head else { return }
        head = nil
        // A range from the middle of a file has no type of its own to tell.
        let fromStart = file?.id != piece.id || (piece.range?.offset ?? 0) == 0
        guard fromStart else { return }
        let kind = bytes.withUnsafeBytes { MediaSniffer.document(contentType: contentType, firstBytes: $0) }
        if let kind { throw .notAVideo(kind) }
    }

    /// Checks the answer once it ended, and lists the piece (or its resource) as finished.
    func finish(_ answer: ResponseHead) throws(DownloadError) -> PieceFetch.Outcome {
        // An empty body never reached `take`.
        if file == nil { try open(answer) }
        guard let file else { throw .httpStatus(code: answer.status, reason: answer.reasonPhrase) }
        try judge()
        if let expected = file.expected, written != expected {
            throw .connectionLost(String(format: tr("the body ended at %1$lld of %2$lld bytes"), written, expected))
        }
        try store.finish(file.id, fd: file.fd)
        return file.id == piece.id ? .piece : .wholeResource
    }

    func close() {
        if let file { FileIO.close(file.fd) }
        file = nil
    }
}

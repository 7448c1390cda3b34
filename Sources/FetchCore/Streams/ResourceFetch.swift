import CCurl
import Foundation
import ThreadKit

/// A small body (a playlist, a key, a page) fetched into memory through the engine's one HTTP
/// client (`HTTPRequest`, so the same rules and redirects as a file's), with a size limit, and
/// transient failures retried with backoff.
struct ResourceFetch {
    struct Answer {
        var body: [UInt8]
        /// Where the redirects ended, without the link's user and password: relative links in
        /// a playlist resolve against it, and a presentation keeps it.
        var finalURL: String
        var contentType: String?
        /// The cookies the answers set on the way (`Set-Cookie`, redirects' included).
        var cookies: [Cookie] = []
    }

    let options: DownloadOptions
    let stop: StopSignal
    /// When set, a longer body is cut to this many bytes rather than refused: a web page is
    /// read as its first bytes (`PageReader`).
    var cutAt: Int?

    init(options: DownloadOptions, stop: StopSignal, cutAt: Int? = nil) {
        self.options = options
        self.stop = stop
        self.cutAt = cutAt
    }

    /// Bytes a playlist or key may have at most.
    static let limit = 16 << 20

    /// Fetches `url` (only `range` of it, when given: a DASH `sidx`); throws the last error
    /// once the retries ran out (at once with `retrying` false), `.badResponse` past `limit`,
    /// and `.stopped` when stopped.
    func get(_ url: String, range: DASHRange? = nil, retrying: Bool = true) throws(RunHalt) -> Answer {
        var backoff = Backoff(options)
        var attempt = 0
        while true {
            let result = once(url, range: range)
            switch result {
            case .success(let answer):
                return answer
            case .failure(.stopped):
                throw .stopped
            case .failure(.failed(let error)):
                attempt += 1
                guard retrying, CurlError.isTransient(error, serverWasReached: true), attempt <= options.maxRetries else { throw .failed(error) }
                if backoff.wait(on: stop) { throw .stopped }
            }
        }
    }

    /// Fetches the first of `places` (the same resource at several places: a DASH manifest's
    /// BaseURLs) that answers, asking the next at once when a host fails (`isHostFailure`);
    /// the last one is tried again as any resource is.
    func get(_ places: [String], range: DASHRange? = nil) throws(RunHalt) -> Answer {
        for (index, url) in places.enumerated() {
            do throws(RunHalt) {
                return try get(url, range: range, retrying: index + 1 == places.count)
            } catch .failed(let error) where error.isHostFailure && index + 1 < places.count {
                Log.warning("\(WebAddress.redacted(url)): \(error.message) Trying \(WebAddress.redacted(places[index + 1])).")
            }
        }
        throw .failed(.other("no place to fetch from"))
    }

    /// The answer's body in memory, up to its limit.
    private final class MemoryBody: HTTPBody {
        var bytes: [UInt8] = []
        var tooLarge = false
        var cut = false
        let limit: Int
        let cuts: Bool
        let stop: StopSignal
        init(stop: StopSignal, limit: Int, cuts: Bool) {
            self.stop = stop
            self.limit = limit
            self.cuts = cuts
        }

        func take(_ piece: UnsafeRawBufferPointer, of answer: ResponseHead) -> Int {
            guard bytes.count + piece.count <= limit, !stop.isRaised else {
                if cuts, !stop.isRaised {
                    bytes.append(contentsOf: piece.prefix(limit - bytes.count))
                    cut = true
                } else {
                    tooLarge = !stop.isRaised
                }
                return 0
            }
            bytes.append(contentsOf: piece)
            return piece.count
        }
    }

    private func once(_ url: String, range: DASHRange?) -> Result<Answer, RunHalt> {
        let body = MemoryBody(stop: stop, limit: cutAt ?? Self.limit, cuts: cutAt != nil)
        let lines = range.map { HTTPRequest.rangeLines(from: $0.first, through: $0.last) } ?? []
        var cookies: [Cookie] = []
        let request: HTTPRequest
        do {
            request = try HTTPRequest(url: url, lines: lines, options: options, stop: stop, body: body)
        } catch {
            return .failure(.failed(error))
        }
        while true {
            var code = request.easy.perform()
            // The cookies every answer sets on the way, redirects' included.
            cookies += (request.response.fields["set-cookie"] ?? []).compactMap { Cookie(setCookie: $0, from: request.easy.url, now: Date()) }
            if stop.isRaised { return .failure(.stopped) }
            if body.tooLarge { return .failure(.failed(.badResponse("a playlist or key larger than \(Self.limit >> 20) MiB"))) }
            // A page cut at its limit ended the transfer on purpose.
            if body.cut, code == CURLE_WRITE_ERROR { code = CURLE_OK }
            guard code == CURLE_OK else { return .failure(.failed(request.failure(code))) }
            do {
                if try !request.followRedirect(after: code) { break }
            } catch {
                return .failure(.failed(error))
            }
        }
        let head = request.response
        let finalURL = WebAddress.withoutCredentials(request.easy.url)
        if let range {
            return ranged(body.bytes, head: head, range: range, url: finalURL).mapError { .failed($0) }
        }
        guard head.status == 200 else {
            return .failure(.failed(.httpStatus(code: head.status, reason: head.reasonPhrase)))
        }
        return .success(Answer(body: body.bytes, finalURL: finalURL, contentType: head["content-type"], cookies: cookies))
    }

    /// The bytes of `range`: a 206 that starts where asked, or a whole body (a server that
    /// ignores Range) cut to it.
    private func ranged(_ bytes: [UInt8], head: ResponseHead, range: DASHRange, url: String) -> Result<Answer, DownloadError> {
        let contentType = head["content-type"]
        switch head.status {
        case 206:
            guard head.contentRange?.start == range.first, Int64(bytes.count) <= range.length else {
                return .failure(.badResponse("a partial answer for another range than the one asked for"))
            }
            return .success(Answer(body: bytes, finalURL: url, contentType: contentType))
        case 200:
            guard Int64(bytes.count) > range.last else {
                return .failure(.badResponse("an answer shorter than the range asked for"))
            }
            return .success(Answer(body: Array(bytes[Int(range.first)...Int(range.last)]), finalURL: url, contentType: contentType))
        default:
            return .failure(.httpStatus(code: head.status, reason: head.reasonPhrase))
        }
    }
}

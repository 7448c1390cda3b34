import CCurl
import Foundation
import ThreadKit

/// A small body (a playlist, a key) fetched into memory with the engine's rules: http and https
/// only, also for redirects and never down from https, TLS verified, no compressed encoding,
/// a size limit, transient failures retried with backoff.
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
    /// once the retries ran out, `.badResponse` past `limit`, and `.stopped` when stopped.
    func get(_ url: String, range: DASHRange? = nil) throws(RunHalt) -> Answer {
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
                guard CurlError.isTransient(error, serverWasReached: true), attempt <= options.maxRetries else { throw .failed(error) }
                if backoff.wait(on: stop) { throw .stopped }
            }
        }
    }

    private final class Body {
        var bytes: [UInt8] = []
        var head = ResponseHead()
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
    }

    private func once(_ url: String, range: DASHRange?) -> Result<Answer, RunHalt> {
        let body = Body(stop: stop, limit: cutAt ?? Self.limit, cuts: cutAt != nil)
        var cookies: [Cookie] = []
        let easy: CurlEasy
        do {
            easy = try CurlEasy()
            try configure(easy, url: url, body: body)
            if let range { try easy.set(CURLOPT_RANGE, "\(range.first)-\(range.last)") }
        } catch {
            return .failure(.failed(error))
        }
        var hops = 0
        while true {
            var code = withExtendedLifetime(body) { easy.perform() }
            if stop.isRaised { return .failure(.stopped) }
            // A page cut at its limit ended the transfer on purpose.
            if body.cut, code == CURLE_WRITE_ERROR { code = CURLE_OK }
            let now = Date()
            cookies += (body.head.fields["set-cookie"] ?? []).compactMap { Cookie(setCookie: $0, from: easy.url, now: now) }
            if body.tooLarge { return .failure(.failed(.badResponse("a playlist or key larger than \(Self.limit >> 20) MiB"))) }
            guard code == CURLE_OK else {
                return .failure(.failed(CurlError.error(code, url: WebAddress.redacted(easy.url), detail: easy.errorText,
                                                        proxy: easy.proxyName)))
            }
            guard RedirectRule.isRedirect(status: body.head.status) else { break }
            hops += 1
            do {
                let next = try RedirectRule.next(from: easy.url, to: easy.redirectURL, hops: hops, limit: options.maxRedirects)
                try easy.aim(at: next, origin: url, options: options, lines: [])
            } catch {
                return .failure(.failed(error))
            }
        }
        let finalURL = WebAddress.withoutCredentials(easy.url)
        if let range {
            return ranged(body, range: range, url: finalURL).mapError { .failed($0) }
        }
        guard body.head.status == 200 else {
            return .failure(.failed(.httpStatus(code: body.head.status, reason: body.head.reasonPhrase)))
        }
        return .success(Answer(body: body.bytes, finalURL: finalURL, contentType: body.head["content-type"], cookies: cookies))
    }

    /// The bytes of `range`: a 206 that starts where asked, or a whole body (a server that
    /// ignores Range) cut to it.
    private func ranged(_ body: Body, range: DASHRange, url: String) -> Result<Answer, DownloadError> {
        let contentType = body.head["content-type"]
        switch body.head.status {
        case 206:
            let start = body.head["content-range"].flatMap { value in
                value.split(separator: " ").last?.split(separator: "-").first.flatMap { Int64($0) }
            }
            guard start == range.first, Int64(body.bytes.count) <= range.length else {
                return .failure(.badResponse("a partial answer for another range than the one asked for"))
            }
            return .success(Answer(body: body.bytes, finalURL: url, contentType: contentType))
        case 200:
            guard Int64(body.bytes.count) > range.last else {
                return .failure(.badResponse("an answer shorter than the range asked for"))
            }
            return .success(Answer(body: Array(body.bytes[Int(range.first)...Int(range.last)]), finalURL: url, contentType: contentType))
        default:
            return .failure(.httpStatus(code: body.head.status, reason: body.head.reasonPhrase))
        }
    }

    /// The engine's rules, and a body kept in memory; libcurl calls back into `body`, which
    /// outlives the request, so the callbacks get it unretained.
    private func configure(_ easy: CurlEasy, url: String, body: Body) throws(DownloadError) {
        let this = Unmanaged.passUnretained(body).toOpaque()
        try easy.applyEngineRules(options: options)
        try easy.aim(at: url, origin: url, options: options, lines: [])
        try easy.set(CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let body = Unmanaged<Body>.fromOpaque(user!).takeUnretainedValue()
            let line = UnsafeRawBufferPointer(start: data, count: size * count)
            // A new status line (a redirect's next hop) starts the body over: only the last one counts.
            if line.starts(with: "HTTP/".utf8) { body.bytes = [] }
            body.head.consume(line: line)
            return size * count
        }
        try easy.set(CURLOPT_HEADERDATA, pointer: this)
        try easy.set(CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let body = Unmanaged<Body>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            guard body.bytes.count + length <= body.limit, !body.stop.isRaised else {
                if body.cuts, !body.stop.isRaised {
                    body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: body.limit - body.bytes.count))
                    body.cut = true
                } else {
                    body.tooLarge = !body.stop.isRaised
                }
                return 0
            }
            body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }
        try easy.set(CURLOPT_WRITEDATA, pointer: this)
    }
}

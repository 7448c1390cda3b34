import CCurl
import ThreadKit

/// Where an answer's body goes, piece by piece, as libcurl delivers it.
protocol HTTPBody: AnyObject {
    /// Takes a piece of the body of `answer` (never a redirect's). Returns the piece's count to
    /// go on, `CURL_WRITEFUNC_PAUSE` to hold it back (libcurl keeps it until `resume`), or
    /// anything else to end the request.
    func take(_ piece: UnsafeRawBufferPointer, of answer: ResponseHead) -> Int

    /// Called as libcurl reports progress, also while the body holds the transfer paused (about
    /// once a second then): where a body that paused itself may let it go on (`CurlEasy.resume`).
    func progressed(_ easy: CurlEasy)
}

extension HTTPBody {
    func progressed(_ easy: CurlEasy) {}
}

/// The engine's one HTTP client: one request on a libcurl handle under the engine's rules
/// (`CurlEasy.applyEngineRules`), its answer's head, its body handed to an `HTTPBody`, and its
/// redirects followed one hop at a time (`RedirectRule`), each hop aimed anew so that the
/// context's host-bound parts stay with their host. A partial's connection (`Transfer`) and a
/// small body in memory (`ResourceFetch`: playlists, keys, pages) are its two bodies.
///
/// libcurl calls back into this object, which outlives the handle, so the callbacks get it
/// unretained; the body is its owner's, which outlives it too.
final class HTTPRequest {
    let easy: CurlEasy
    /// The head of the answer being received (a redirect's until the next hop is aimed).
    private(set) var response = ResponseHead()
    /// The request's first URL, whose host the context's host-bound headers are for.
    let url: String
    private let options: DownloadOptions
    /// Header lines of the request's own (`Range`, `If-Range`), sent at every hop.
    private let lines: [[UInt8]]
    private let stop: StopSignal
    private unowned(unsafe) let body: any HTTPBody
    /// Redirects followed so far.
    private var hops = 0

    /// - Parameter handle: a handle an earlier request of the same thread is done with: its
    ///   connections are kept, so the next request to the same host needs no new one.
    init(url: String, lines: [[UInt8]] = [], options: DownloadOptions, stop: StopSignal, body: any HTTPBody,
         reusing handle: CurlEasy? = nil) throws(DownloadError) {
        self.url = url
        self.lines = lines
        self.options = options
        self.stop = stop
        self.body = body
        if let handle { easy = handle } else { easy = try CurlEasy() }
        let this = Unmanaged.passUnretained(self).toOpaque()
        try easy.applyEngineRules(options: options)
        try easy.aim(at: url, origin: url, options: options, lines: lines)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let this = Unmanaged<HTTPRequest>.fromOpaque(user!).takeUnretainedValue()
            this.response.consume(line: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        try easy.set(CURLOPT_HEADERDATA, pointer: this)
        try easy.set(CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let this = Unmanaged<HTTPRequest>.fromOpaque(user!).takeUnretainedValue()
            // A redirect's body is nobody's bytes.
            if RedirectRule.isRedirect(status: this.response.status) { return size * count }
            return this.body.take(UnsafeRawBufferPointer(start: data, count: size * count), of: this.response)
        }
        try easy.set(CURLOPT_WRITEDATA, pointer: this)
        try easy.set(CURLOPT_NOPROGRESS, 0)
        try easy.setProgress { user, _, _, _, _ in
            let this = Unmanaged<HTTPRequest>.fromOpaque(user!).takeUnretainedValue()
            if this.stop.isRaised { return 1 }
            this.body.progressed(this.easy)
            return 0
        }
        try easy.set(CURLOPT_XFERINFODATA, pointer: this)
    }

    /// Follows the answer just ended when it is a redirect: aims the handle at the next hop
    /// (with the headers allowed there) and returns true; the caller performs it again (the easy interface) or adds
    /// it to its multi handle again. False
    /// when the answer is no redirect or the request failed; throws when the redirect may not
    /// be followed.
    func followRedirect(after code: CURLcode) throws(DownloadError) -> Bool {
        guard code == CURLE_OK, !stop.isRaised, RedirectRule.isRedirect(status: response.status) else { return false }
        hops += 1
        let next = try RedirectRule.next(from: easy.url, to: easy.redirectURL, hops: hops, limit: options.maxRedirects)
        try easy.aim(at: next, origin: url, options: options, lines: lines)
        response = ResponseHead()
        return true
    }

    /// The request's own lines for bytes `first` through `last` (nil: to the end): `Range`, and
    /// `If-Range` with `validator` sent back byte for byte (it passed `HeaderBytes.isSafeToSend`).
    static func rangeLines(from first: Int64, through last: Int64?, validator: String? = nil) -> [[UInt8]] {
        var lines = [Array("Range: bytes=\(first)-\(last.map(String.init) ?? "")".utf8)]
        if let validator, let bytes = HeaderBytes.bytes(of: validator) { lines.append(Array("If-Range: ".utf8) + bytes) }
        return lines
    }

    /// libcurl's failure `code` as the engine's error, naming the URL (without its password)
    /// and the proxy.
    func failure(_ code: CURLcode) -> DownloadError {
        CurlError.error(code, url: WebAddress.redacted(easy.url), detail: easy.errorText, proxy: easy.proxyName)
    }
}

import CCurl
import Foundation

/// A small body (a playlist, a key) fetched into memory with the engine's rules: http and https
/// only, also for redirects and never down from https, TLS verified, no compressed encoding,
/// a size limit, transient failures retried with backoff.
struct HLSFetch {
    struct Answer {
        var body: [UInt8]
        /// Where the redirects ended: relative links in a playlist resolve against it.
        var finalURL: String
        var contentType: String?
    }

    let options: DownloadOptions
    let stop: StopSignal

    /// Bytes a playlist or key may have at most.
    static let limit = 16 << 20

    /// Fetches `url`; throws the last error once the retries ran out, `.badResponse` past `limit`.
    func get(_ url: String) throws(DownloadError) -> Answer {
        var backoff = options.initialBackoff
        var attempt = 0
        while true {
            let result = once(url)
            switch result {
            case .success(let answer):
                return answer
            case .failure(let error):
                attempt += 1
                guard CurlError.isTransient(error, serverWasReached: true), attempt <= options.maxRetries else { throw error }
                if stop.wait(seconds: backoff) { throw .other("stopped") }
                backoff = min(backoff * 2, options.maxBackoff)
            }
        }
    }

    private final class Body {
        var bytes: [UInt8] = []
        var head = ResponseHead()
        var tooLarge = false
        let stop: StopSignal
        init(stop: StopSignal) { self.stop = stop }
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private func once(_ url: String) -> Result<Answer, DownloadError> {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { return .failure(.other("libcurl could not start")) }
        defer { curl_easy_cleanup(handle) }
        let body = Body(stop: stop)
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        errorBuffer[0] = 0
        let this = Unmanaged.passUnretained(body).toOpaque()
        fp_curl_setopt_string(handle, CURLOPT_URL, url)
        fp_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        fp_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        fp_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        fp_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, url.lowercased().hasPrefix("https:") ? "https" : "http,https")
        fp_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        fp_curl_setopt_long(handle, CURLOPT_MAXREDIRS, options.maxRedirects)
        fp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        fp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        fp_curl_setopt_string(handle, CURLOPT_USERAGENT, "Fetchplay/0.1")
        fp_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
        fp_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        fp_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, options.stallSeconds)
        fp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let body = Unmanaged<Body>.fromOpaque(user!).takeUnretainedValue()
            let line = UnsafeRawBufferPointer(start: data, count: size * count)
            // A new status line (after a redirect) starts the body over: only the last one counts.
            if line.starts(with: "HTTP/".utf8) { body.bytes = [] }
            body.head.consume(line: line)
            return size * count
        }
        fp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, this)
        fp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let body = Unmanaged<Body>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            guard body.bytes.count + length <= HLSFetch.limit, !body.stop.isRaised else {
                body.tooLarge = !body.stop.isRaised
                return 0
            }
            body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }
        fp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, this)
        let code = curl_easy_perform(handle)
        if stop.isRaised { return .failure(.other("stopped")) }
        if body.tooLarge { return .failure(.badResponse("a playlist or key larger than \(Self.limit >> 20) MiB")) }
        guard code == CURLE_OK else {
            return .failure(CurlError.error(code, url: WebAddress.redacted(url), detail: String(cString: errorBuffer)))
        }
        guard body.head.status == 200 else {
            return .failure(.httpStatus(code: body.head.status, reason: body.head.reasonPhrase))
        }
        var final: UnsafeMutablePointer<CChar>?
        fp_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &final)
        return .success(Answer(body: body.bytes, finalURL: final.map { String(cString: $0) } ?? url,
                               contentType: body.head["content-type"]))
    }
}

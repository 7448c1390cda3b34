import CCurl
import Localization

/// The one place where a libcurl result becomes a `DownloadError`.
enum CurlError {
    /// Translates `code` for a transfer of `url`; `detail` is libcurl's error buffer, `proxy`
    /// the proxy the request went through, as people may see it.
    static func error(_ code: CURLcode, url: String, detail: String, proxy: String? = nil) -> DownloadError {
        let host = WebAddress.host(of: url)
        let words = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if let proxy, isProxyFailure(code, words) { return .proxyFailed(proxy: proxy, detail: words) }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return .hostNotFound(host)
        case CURLE_COULDNT_CONNECT:
            return .connectionRefused(host)
        case CURLE_OPERATION_TIMEDOUT:
            return .stalled
        case CURLE_RECV_ERROR where words.contains("chunked-encoding"):
            // A broken chunk is the server's bytes, not the network: no retry mends it. libcurl
            // tells it apart only in its words ("Malformed encoding found in chunked-encoding").
            return .badResponse(tr("its chunked encoding is malformed"))
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
             CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionLost(words)
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl says: Protocol "ftp" not supported or disabled in libcurl
            let quoted = words.split(separator: "\"")
            return .unsupportedScheme(quoted.count >= 2 ? String(quoted[1]) : tr("this kind of link"))
        case CURLE_URL_MALFORMAT:
            return .invalidURL(url)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            return .tls(words)
        case CURLE_WRITE_ERROR:
            return .fileSystem(words)
        default:
            return .other(words)
        }
    }

    /// Whether a failure is the proxy's rather than the server's: it could not be found or
    /// reached, or refused the request (a SOCKS error, a CONNECT answered with an error).
    private static func isProxyFailure(_ code: CURLcode, _ words: String) -> Bool {
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: true
        case CURLE_COULDNT_CONNECT: true  // through a proxy, the proxy is what was connected to
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            words.contains("CONNECT") || words.localizedCaseInsensitiveContains("proxy")
        default: false
        }
    }

    /// Whether an error is worth retrying automatically from the durable offset.
    ///
    /// A refused or unresolvable host is retried only once the server had been reached, so a
    /// mistyped link fails in a second while a restarting server is waited for.
    static func isTransient(_ error: DownloadError, serverWasReached: Bool) -> Bool {
        switch error {
        case .connectionLost, .stalled:
            true
        case .connectionRefused, .hostNotFound, .proxyFailed:
            serverWasReached
        case .httpStatus(let code, _):
            serverWasReached && (code == 502 || code == 503 || code == 504)
        default:
            false
        }
    }
}

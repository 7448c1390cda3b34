import CCurl
import Foundation

/// The check every URL passes before Fetchplay touches the network: only http and https.
public enum WebAddress {
    /// Returns the trimmed URL, or throws an error whose message says what to paste instead.
    ///
    /// libcurl's own URL parser decides, so what passes here is exactly what libcurl will fetch.
    public static func validate(_ text: String) throws(DownloadError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidURL(text) }
        let scheme = try part(CURLUPART_SCHEME, of: trimmed)
        guard let scheme else { throw .invalidURL(trimmed) }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let host = try part(CURLUPART_HOST, of: trimmed), !host.isEmpty else {
            throw .invalidURL(trimmed)
        }
        return trimmed
    }

    /// The host name of a URL that passed `validate`, for messages.
    static func host(of url: String) -> String {
        ((try? part(CURLUPART_HOST, of: url)) ?? nil) ?? url
    }

    /// The last path segment of a URL, percent-decoded, or nil.
    static func lastPathSegment(of url: String) -> String? {
        guard let path = (try? part(CURLUPART_PATH, of: url)) ?? nil else { return nil }
        let segment = path.split(separator: "/").last.map(String.init) ?? ""
        return segment.removingPercentEncoding ?? segment
    }

    private static func part(_ which: CURLUPart, of url: String) throws(DownloadError) -> String? {
        guard let handle = curl_url() else { throw .other("out of memory") }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else {
            // A scheme that libcurl does not know (ftp is known, "magnet" is not) still deserves
            // the scheme message rather than "not a web address".
            if let colon = url.firstIndex(of: ":"), url[..<colon].allSatisfy({ $0.isLetter }),
               !url[..<colon].isEmpty, url[url.index(after: colon)...].hasPrefix("//") {
                let scheme = url[..<colon].lowercased()
                if scheme != "http", scheme != "https" { throw .unsupportedScheme(scheme) }
            }
            throw .invalidURL(url)
        }
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}

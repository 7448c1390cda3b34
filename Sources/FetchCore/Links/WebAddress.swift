import CCurl
import CPSL
import Foundation
import Localization

/// The check every URL passes before Fetchplay touches the network, and the one spelling of a
/// link that names its video.
///
/// Three forms of a link:
/// - the *request* URL (`validate`): normalised, credentials kept, used for the request only;
/// - the *identity* (`identity`): the request URL without its password. Records store it, the
///   cache key is its hash, the library and the command line show it;
/// - `redacted`: any text made safe to print (the password replaced).
public enum WebAddress {
    /// Returns the normalised URL, or throws an error whose message says what to paste instead.
    ///
    /// libcurl's own URL parser decides, so what passes here is exactly what libcurl will fetch.
    /// A link without a scheme is completed as a browser's address bar does
    /// (`example.org/v.webm` → `https://example.org/v.webm`; `http://` for localhost and IP
    /// addresses). What names a file on this computer (`LocalPath`) is no link: it throws
    /// `.localFile`, and a bare name whose ending is no public suffix (`video.mp4`) is no link.
    public static func validate(_ text: String) throws(DownloadError) -> String {
        // Trimmed natively: Foundation's trimming bridges through NSString, a tenth of a
        // library's loading time when every record's link is checked.
        var cut = Substring(text)
        while cut.first?.isWhitespace == true { cut.removeFirst() }
        while cut.last?.isWhitespace == true { cut.removeLast() }
        let trimmed = String(cut)
        guard !trimmed.isEmpty else { throw .invalidURL(text) }
        if let local = LocalPath(trimmed) { throw .localFile(local) }
        var normal = try checked(URLParts(completingScheme(trimmed)), from: trimmed)
        // libcurl reads some spellings differently a second time: it decodes a host's
        // percent-encoding after it has read IPv4 numbers, so `https://%34/` has the host `4`,
        // which read again is the address `0.0.0.4`. The normal form is read again until it
        // stands still (what libcurl will fetch), so that a record's link, checked again, names
        // the same video; one that never settles is refused.
        for _ in 0..<3 {
            let again = try checked(URLParts(normal), from: trimmed)
            if again == normal { return normal }
            normal = again
        }
        throw .invalidURL(trimmed.contains("@") ? "…" : trimmed)
    }

    /// The normal form of `parts`, when they name an http or https host.
    private static func checked(_ parts: URLParts, from text: String) throws(DownloadError) -> String {
        guard parts.scheme == "http" || parts.scheme == "https" else { throw .unsupportedScheme(parts.scheme) }
        guard HostName.isSpelledAsHost(parts.host) else { throw .invalidURL(text.contains("@") ? "…" : text) }
        return parts.normalized(keepingPassword: true)
    }

    /// The link's identity: `validate`d, without the password (the user name stays).
    public static func identity(_ text: String) throws(DownloadError) -> String {
        try URLParts(validate(text)).normalized(keepingPassword: false)
    }

    /// `text` with any password in it replaced, for messages and logs.
    public static func redacted(_ text: String) -> String {
        guard let parts = try? URLParts(text), parts.password != nil else { return text }
        return parts.normalized(keepingPassword: false)
    }

    /// `url` without a user name or password: what a presentation keeps of where it read a
    /// playlist, so relative links resolved from it carry none either (`LinkCredentials` adds
    /// the link's back, on its own host, at request time).
    static func withoutCredentials(_ url: String) -> String {
        guard var parts = try? URLParts(url), parts.user != nil || parts.password != nil else { return url }
        parts.user = nil
        parts.password = nil
        return parts.normalized(keepingPassword: false)
    }

    /// N when `url` names the Nth video of a web page (`PAGE#video-N`), else nil.
    public static func pageVideo(of url: String) -> Int? { (try? URLParts(url))?.pageVideo }

    /// The link of the `number`th video of the page at `page` (`PAGE#video-N`).
    public static func pageVideo(_ number: Int, on page: String) -> String {
        guard var parts = try? URLParts(page) else { return page }
        parts.pageVideo = number
        return parts.normalized(keepingPassword: true)
    }

    /// The host name of a URL that passed `validate`, for messages and the library.
    public static func host(of url: String) -> String {
        (try? URLParts(url).host) ?? redacted(url)
    }

    /// The last path segment of a URL, percent-decoded, or nil.
    static func lastPathSegment(of url: String) -> String? {
        guard let path = try? URLParts(url).path else { return nil }
        let segment = path.split(separator: "/").last.map(String.init) ?? ""
        return segment.removingPercentEncoding ?? segment
    }

    /// `example.org/v.webm` → `https://example.org/v.webm`: text with no `scheme://` whose first
    /// part is a host name (`localhost`, an IP address, or a name ending in a public suffix after
    /// a dot), then a port or a path. Other text comes back as it is (libcurl then refuses it).
    private static func completingScheme(_ text: String) -> String {
        guard !text.contains("://"), !text.contains(" ") else { return text }
        let hostAndPort = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let colon = hostAndPort.firstIndex(of: ":"),
           !hostAndPort[hostAndPort.index(after: colon)...].allSatisfy(\.isNumber) {
            return text  // `mailto:x`, `magnet:?…`: a scheme, not a port
        }
        switch HostName(String(hostAndPort.split(separator: ":", maxSplits: 1).first ?? "")) {
        case .local: return "http://" + text
        case .public: return "https://" + text
        case .none: return text
        }
    }
}

/// A URL taken apart by libcurl, and put together again in the normal form of RFC 3986 §6:
/// scheme and host in lower case, no default port, dot segments removed, an empty path as `/`,
/// percent-encoding normalised (upper-case hex, unreserved characters decoded, raw bytes such
/// as UTF-8 encoded), no fragment (it never reaches the server) but `#video-N`, Fetchplay's own
/// name for the Nth video a web page offers (`pageVideo`).
struct URLParts {
    var scheme: String
    var user: String?
    var password: String?
    var host: String
    var port: String?
    var path: String
    var query: String?
    /// N of a `#video-N` fragment (1 to 999): the page's Nth video is the download, not the
    /// page's only one. Any other fragment is dropped.
    var pageVideo: Int?

    init(_ text: String) throws(DownloadError) {
        guard let handle = curl_url() else { throw .other(tr("out of memory")) }
        defer { curl_url_cleanup(handle) }
        // Raw spaces and non-ASCII bytes are allowed in (and percent-encoded by `normalized`).
        // (Text that does not parse is not echoed when it may hold a password.)
        let flags = UInt32(CURLU_ALLOW_SPACE)
        guard curl_url_set(handle, CURLUPART_URL, text, flags) == CURLUE_OK else {
            // A scheme that libcurl does not know (ftp is known, "magnet" is not) still deserves
            // the scheme message rather than "not a web address".
            if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter }),
               !text[..<colon].isEmpty, text[text.index(after: colon)...].hasPrefix("//") {
                let scheme = text[..<colon].lowercased()
                if scheme != "http", scheme != "https" { throw .unsupportedScheme(scheme) }
            }
            throw .invalidURL(text.contains("@") ? "…" : text)
        }
        func get(_ part: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, part, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        scheme = get(CURLUPART_SCHEME)?.lowercased() ?? ""
        user = get(CURLUPART_USER)
        password = get(CURLUPART_PASSWORD)
        host = get(CURLUPART_HOST)?.lowercased() ?? ""
        port = get(CURLUPART_PORT, UInt32(CURLU_NO_DEFAULT_PORT))
        path = get(CURLUPART_PATH) ?? "/"
        query = get(CURLUPART_QUERY)
        if let fragment = get(CURLUPART_FRAGMENT), fragment.hasPrefix("video-"), let number = Int(fragment.dropFirst(6)),
           (1...999).contains(number), fragment == "video-\(number)" {
            pageVideo = number
        }
    }

    func normalized(keepingPassword: Bool) -> String {
        var text = scheme + "://"
        if let user {
            text += Self.normalizedEncoding(user)
            if keepingPassword, let password { text += ":" + Self.normalizedEncoding(password) }
            text += "@"
        }
        text += host
        if let port { text += ":" + port }
        // libcurl removed the dot segments before `%2E` was decoded to `.`; removing them again
        // after makes the form normal once and for all (`/a/.%2e/b` → `/b`, then `/b` again).
        text += path.isEmpty ? "/" : Self.removingDotSegments(Self.normalizedEncoding(path))
        if let query { text += "?" + Self.normalizedEncoding(query) }
        if let pageVideo { text += "#video-\(pageVideo)" }
        return text
    }

    /// `path` without its `.` and `..` segments (RFC 3986 §5.2.4): `/a/./b/../c` → `/a/c`; a
    /// `..` above the root stays at the root.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".": if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// Percent-encoding in one form: `%7e` → `~`, `%c3%a9` → `%C3%A9`, `é` → `%C3%A9`, ` ` → `%20`.
    static func normalizedEncoding(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        func isUnreserved(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
        }
        func encode(_ byte: UInt8) {
            result += Array(String(format: "%%%02X", byte).utf8)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x25, index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16) {
                if isUnreserved(value) { result.append(value) } else { encode(value) }
                index += 3
                continue
            }
            // Visible ASCII stays (reserved characters keep their meaning); everything else is encoded.
            if byte > 0x20, byte < 0x7F, byte != 0x25 { result.append(byte) } else { encode(byte) }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }
}

import Foundation

/// The status line and headers of the final HTTP response, collected from libcurl's header
/// callback. A new status line (after a redirect or a `100 Continue`) starts over.
struct ResponseHead: Sendable, Equatable {
    var status = 0
    var reason = ""
    /// Lowercased names; a repeated header keeps its last value.
    var headers: [String: String] = [:]

    init() {}

    init(status: Int, headers: [String: String] = [:]) {
        self.status = status
        self.headers = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) })
    }

    /// Feeds one raw header line (with or without its CRLF).
    mutating func consume(line raw: String) {
        let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            self = ResponseHead()
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            reason = parts.count > 2 ? String(parts[2]) : ""
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    /// The body's length, when the server gave one and the body is not chunked.
    var contentLength: Int64? {
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true { return nil }
        return headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// A strong ETag; weak ones (`W/…`) cannot validate a byte range.
    var strongETag: String? {
        guard let etag = headers["etag"], !etag.isEmpty, !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    var lastModified: String? { headers["last-modified"] }

    var contentRange: ContentRange? { headers["content-range"].flatMap(ContentRange.init) }

    /// The reason phrase, or the standard one when the server sent none (HTTP/2 has none).
    var reasonPhrase: String {
        if !reason.isEmpty { return reason }
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 410: return "Gone"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Error"
        }
    }

    /// The file name the server suggests, reduced to a harmless display name (no folders, no
    /// dots in front, no control characters). Only ever shown to people, never used on disk.
    var suggestedName: String? {
        guard let value = headers["content-disposition"],
              let range = value.range(of: "filename=", options: .caseInsensitive) else { return nil }
        var name = value[range.upperBound...].split(separator: ";").first.map(String.init) ?? ""
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        return DisplayName.sanitize(name)
    }
}

/// `Content-Range: bytes START-END/TOTAL` or `bytes */TOTAL`.
struct ContentRange: Sendable, Equatable {
    var start: Int64?
    var end: Int64?
    var total: Int64?

    init(start: Int64?, end: Int64?, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes") else { return nil }
        let spec = text.dropFirst(5).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        if halves[1] != "*" {
            guard let length = Int64(halves[1]), length >= 0 else { return nil }
            total = length
        }
        if halves[0] != "*" {
            // Digits only: a sign or an end before the start is not a range (and would overflow
            // arithmetic on hostile numbers).
            let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, bounds.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
            if let total, last >= total { return nil }
            start = first
            end = last
        }
    }
}

/// Names for people, made harmless.
enum DisplayName {
    static func sanitize(_ raw: String) -> String? {
        let lastComponent = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = String(lastComponent.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        while name.hasPrefix(".") { name.removeFirst() }
        name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        return String(name.prefix(200))
    }

    static func fromURL(_ url: String) -> String {
        WebAddress.lastPathSegment(of: url).flatMap(sanitize) ?? WebAddress.host(of: url)
    }
}

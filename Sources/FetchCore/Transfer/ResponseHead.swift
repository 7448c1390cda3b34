import Foundation
import Localization

/// The status line and headers of the final HTTP response, collected from libcurl's header
/// callback. A new status line (after a redirect or a `100 Continue`) starts over.
///
/// Header values are kept as the exact bytes received, each byte as the Unicode scalar of the
/// same number (ISO 8859-1), so a validator can be sent back unchanged (`HeaderBytes`).
struct ResponseHead: Sendable, Equatable {
    var status = 0
    var reason = ""
    /// Lowercased names; every value of a repeated header, in order, as byte-for-byte scalars.
    private(set) var fields: [String: [String]] = [:]

    init() {}

    init(status: Int, headers: [String: String] = [:]) {
        self.init(status: status, fields: headers.map { ($0.key, $0.value) })
    }

    /// A head with repeated headers, in order.
    init(status: Int, fields list: [(String, String)]) {
        self.status = status
        for (name, value) in list { fields[name.lowercased(), default: []].append(value) }
    }

    /// Feeds one raw header line (with or without its CRLF).
    mutating func consume(line raw: UnsafeRawBufferPointer) {
        let line = HeaderBytes.latin1(raw).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            self = ResponseHead()
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            reason = parts.count > 2 ? HeaderBytes.displayText(String(parts[2])) : ""
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        fields[name, default: []].append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The last value of a header, decoded as UTF-8 where it is valid: for reading, never for
    /// sending back.
    subscript(name: String) -> String? {
        fields[name]?.last.map(HeaderBytes.displayText)
    }

    /// The body's length, when the server gave one and the body is not chunked.
    var contentLength: Int64? {
        if isChunked { return nil }
        return lengths.first.flatMap { $0 >= 0 ? $0 : nil }
    }

    private var isChunked: Bool { self["transfer-encoding"]?.lowercased().contains("chunked") == true }

    /// Every `Content-Length` value, also from a comma-separated list.
    private var lengths: [Int64] {
        (fields["content-length"] ?? []).flatMap { $0.split(separator: ",") }
            .map { Int64($0.trimmingCharacters(in: .whitespaces)) ?? -1 }
    }

    /// Why the body of this answer cannot be the video, however the status reads: a protocol
    /// violation that no retry will mend (RFC 9110 §8.6, RFC 9112 §6.3), or an encoding that
    /// would store other bytes than the file's.
    var violation: String? {
        if !isChunked, Set(lengths).count > 1 || lengths.contains(-1) {
            let values = (fields["content-length"] ?? []).map(HeaderBytes.displayText).joined(separator: ", ")
            return String(format: tr("it announced conflicting lengths (Content-Length %1$@)"), values)
        }
        if let encoding = self["content-encoding"]?.lowercased(), !encoding.isEmpty, encoding != "identity" {
            return String(format: tr("it compressed the video (Content-Encoding: %1$@) although Fetchplay did not ask for that"), encoding)
        }
        if let coding = self["transfer-encoding"]?.lowercased(),
           coding.split(separator: ",").contains(where: { !["chunked", "identity"].contains($0.trimmingCharacters(in: .whitespaces)) }) {
            return String(format: tr("it sent the video in an encoding Fetchplay does not store (Transfer-Encoding: %1$@)"), coding)
        }
        return nil
    }

    /// A strong ETag that can be sent back exactly; weak ones (`W/…`) cannot validate a range.
    var strongETag: String? {
        guard let etag = validator("etag"), !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    var lastModified: String? { validator("last-modified") }

    /// A header that is sent back in `If-Range`: only when it appears once and has no control
    /// characters (a CR would start a second header in the request).
    private func validator(_ name: String) -> String? {
        guard let values = fields[name], values.count == 1, HeaderBytes.isSafeToSend(values[0]) else { return nil }
        return values[0]
    }

    var contentRange: ContentRange? { self["content-range"].flatMap(ContentRange.init) }

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
        guard let value = self["content-disposition"] else { return nil }
        let parameters = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        // RFC 6266: `filename*=UTF-8''…` (percent-encoded) wins over `filename="…"`.
        if let extended = parameters.first(where: { $0.lowercased().hasPrefix("filename*=") }) {
            let encoded = extended.dropFirst("filename*=".count)
            if let quote = encoded.range(of: "''"), encoded[..<quote.lowerBound].lowercased() == "utf-8",
               let name = String(encoded[quote.upperBound...]).removingPercentEncoding {
                return DisplayName.sanitize(name)
            }
        }
        guard let plain = parameters.first(where: { $0.lowercased().hasPrefix("filename=") }) else { return nil }
        return DisplayName.sanitize(plain.dropFirst("filename=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
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
    /// The last path component of `raw` without control and format characters (general
    /// categories Cc, Cf, Zl, Zp: a bidi override such as U+202E shows `exe.mp4` for `4pm.exe`,
    /// zero-width ones hide what a name holds), with no dot or blank in front (taken off until
    /// none is left: `". .x"` becomes `x`, never `.x`, a hidden file) and none at its end.
    static func sanitize(_ raw: String) -> String? {
        let lastComponent = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = Substring(String(String.UnicodeScalarView(lastComponent.unicodeScalars.filter { !$0.isHiddenInText })))
        while let first = name.first, first == "." || first.isWhitespace { name.removeFirst() }
        while let last = name.last, last.isWhitespace { name.removeLast() }
        guard !name.isEmpty else { return nil }
        return String(name.prefix(200))
    }

    static func fromURL(_ url: String) -> String {
        WebAddress.lastPathSegment(of: url).flatMap(sanitize) ?? WebAddress.host(of: url)
    }
}

extension Unicode.Scalar {
    /// A control or format character or a line or paragraph separator (Cc, Cf, Zl, Zp): one that
    /// is invisible or changes how the text around it shows. Names lose them; `--list` escapes them.
    public var isHiddenInText: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

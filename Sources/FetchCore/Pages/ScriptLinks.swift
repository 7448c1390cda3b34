/// http(s) links to media files written inside text that is no HTML: a script, a JSON blob, a
/// `data-*` attribute. Found by reading, never by running: a link starts at `http://` or
/// `https://` (also written `http:\/\/`, as JSON escapes it) and ends at a quote, a blank or a
/// bracket; it counts when its file name is a media one (`PageScanner.mediaKind`).
enum ScriptLinks {
    /// Links found in one text at most.
    static let limit = 1_000
    /// Bytes a link may have.
    static let maximumLength = 4096

    static func find(in text: String) -> [String] {
        let bytes = Array(text.utf8)
        var links: [String] = []
        var index = 0
        while index + 7 <= bytes.count, links.count < limit {
            guard bytes[index] == UInt8(ascii: "h"), startsLink(bytes, at: index) else {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, end - index < maximumLength, !isTerminator(bytes[end]) { end += 1 }
            let link = unescaped(String(decoding: bytes[index..<end], as: UTF8.self))
            if PageScanner.mediaKind(of: link) != nil { links.append(link) }
            index = max(end, index + 1)
        }
        return links
    }

    private static let prefixes = ["http://", "https://", "http:\\/\\/", "https:\\/\\/"].map { Array($0.utf8) }

    private static func startsLink(_ bytes: [UInt8], at index: Int) -> Bool {
        prefixes.contains { bytes[index...].starts(with: $0) }
    }

    private static func isTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
             UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: ";"):
            return true
        default:
            return byte <= 0x20 || byte == 0x7F
        }
    }

    /// A link as a script or JSON escapes it, read back: `\/` and `\u002F` are `/`, `\u0026` and
    /// `&amp;` are `&`.
    private static func unescaped(_ link: String) -> String {
        var text = link
        for (escaped, plain) in [("\\/", "/"), ("\\u002F", "/"), ("\\u002f", "/"), ("\\u0026", "&"), ("&amp;", "&")]
        where text.contains(escaped) {
            text = text.replacingOccurrences(of: escaped, with: plain)
        }
        // A backslash left at the end began an escape the link's end cut off.
        while text.hasSuffix("\\") { text.removeLast() }
        return text
    }
}

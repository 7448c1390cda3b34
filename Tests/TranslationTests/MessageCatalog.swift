import Foundation

/// The entries of a gettext catalogue (`.pot` or `.po`) as written by `scripts/translations`:
/// one line per string (`--no-wrap`), which is all these tests need to read.
struct MessageCatalog {
    struct Entry: Equatable {
        var msgid: String
        var plural: String?
        /// `msgstr`, or `msgstr[0]`, `msgstr[1]`… for a plural entry.
        var translations: [String]
        var flags: Set<String>
    }

    let entries: [Entry]

    /// Reads `path`, skipping the header entry and obsolete (`#~`) ones.
    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var entries: [Entry] = []
        for block in text.components(separatedBy: "\n\n") {
            var entry = Entry(msgid: "", plural: nil, translations: [], flags: [])
            var sawID = false
            var last: WritableKeyPath<Entry, String>?
            var lastTranslation: Int?
            for line in block.split(separator: "\n").map(String.init) {
                if line.hasPrefix("#,") {
                    entry.flags.formUnion(line.dropFirst(2).split(separator: ",")
                        .map { $0.trimmingCharacters(in: .whitespaces) })
                } else if line.hasPrefix("msgid_plural ") {
                    entry.plural = Self.unquote(line.dropFirst("msgid_plural ".count))
                    last = nil; lastTranslation = nil
                } else if line.hasPrefix("msgid ") {
                    entry.msgid = Self.unquote(line.dropFirst("msgid ".count))
                    sawID = true; last = \.msgid; lastTranslation = nil
                } else if line.hasPrefix("msgstr") {
                    let quote = line.firstIndex(of: "\"") ?? line.endIndex
                    entry.translations.append(Self.unquote(line[quote...]))
                    last = nil; lastTranslation = entry.translations.count - 1
                } else if line.hasPrefix("\"") {
                    // A continued string (the header, or a catalogue someone wrapped by hand).
                    if let last { entry[keyPath: last] += Self.unquote(line[...]) }
                    if let lastTranslation { entry.translations[lastTranslation] += Self.unquote(line[...]) }
                }
            }
            if sawID, !entry.msgid.isEmpty { entries.append(entry) }
        }
        self.entries = entries
    }

    var msgids: [String] { entries.map(\.msgid) }

    /// Whether `message` is what one of the entries gives once its specifiers are filled in.
    func produces(_ message: String) -> Bool {
        entries.contains { entry in
            let forms = [entry.msgid] + (entry.plural.map { [$0] } ?? [])
            return forms.contains { Self.matches(message, format: $0) }
        }
    }

    /// Whether `text` is `format` with its specifiers (`%1$@`, `%ld`, `%1$lld`) filled in.
    static func matches(_ text: String, format: String) -> Bool {
        let specifier = try! NSRegularExpression(pattern: #"%(\d+\$)?(@|l{0,2}d|\.\d+f)"#)
        var pattern = "^"
        var position = format.startIndex
        let whole = NSRange(format.startIndex..., in: format)
        for match in specifier.matches(in: format, range: whole) {
            let range = Range(match.range, in: format)!
            pattern += NSRegularExpression.escapedPattern(for: String(format[position..<range.lowerBound]))
            pattern += format[range].hasSuffix("@") ? "(.+)" : "(-?[0-9.]+)"
            position = range.upperBound
        }
        pattern += NSRegularExpression.escapedPattern(for: String(format[position...])) + "$"
        let regex = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func unquote<S: StringProtocol>(_ quoted: S) -> String {
        var text = String(quoted.trimmingCharacters(in: .whitespaces).dropFirst().dropLast())
        for (escaped, plain) in [("\\n", "\n"), ("\\t", "\t"), ("\\\"", "\"")] {
            text = text.replacingOccurrences(of: escaped, with: plain)
        }
        return text.replacingOccurrences(of: "\\\\", with: "\\")
    }
}

/// The checkout this test was built from, and the tools run in it.
enum Checkout {
    /// Tests/TranslationTests/<file> → the top of the checkout.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func path(_ relative: String) -> String { root + "/" + relative }
}

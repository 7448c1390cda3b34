import FetchCore

/// One line of `fetchplay --list`: state, bytes, path and link, separated by tabs.
///
/// The path and the link are outside text (a folder someone chose, a name on disk, a link), so
/// the characters that would break the row or hide what it says are escaped instead of printed:
/// a tab or line end would split it, and a bidi override (U+202E) or a zero-width character
/// would show a terminal something else than what is there. They come out as `\t`, `\n`, `\r`
/// and `\u202E`; a backslash as `\\`, so the row reads back unambiguously.
enum ListRow {
    static func line(_ entry: LibraryItem) -> String {
        let state = entry.isComplete ? "complete" : entry.isMissing ? "missing" : "partial"
        let total = entry.total.map(String.init) ?? "?"
        return [state, "\(entry.bytesDone)/\(total)", escaped(entry.path), escaped(entry.url)].joined(separator: "\t")
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case _ where scalar.isHiddenInText:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

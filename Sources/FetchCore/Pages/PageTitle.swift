import Foundation

/// A page's or a video's title as a name: one line, no site name trailing after ` | `, ` - `,
/// ` – ` or ` — `, bounded.
enum PageTitle {
    /// Characters a title keeps at most (the file name is bounded again by `VideoName`).
    static let maximumLength = 150

    /// `title` on one line, trimmed and bounded; nil when nothing is left.
    static func clean(_ title: String?) -> String? {
        guard let title else { return nil }
        let visible = String(String.UnicodeScalarView(title.unicodeScalars.filter { !$0.isHiddenInText || $0 == "\n" || $0 == "\t" }))
        let words = visible.split(whereSeparator: \.isWhitespace)
        let line = words.joined(separator: " ")
        guard !line.isEmpty else { return nil }
        return String(line.prefix(maximumLength))
    }

    /// A `<title>` without the site's name after its last separator ("Talk | Conference" →
    /// "Talk"), when something is left before it.
    static func withoutSiteName(_ title: String?) -> String? {
        guard let line = clean(title) else { return nil }
        for separator in [" | ", " – ", " — ", " - "] {
            if let cut = line.range(of: separator, options: .backwards), cut.lowerBound != line.startIndex {
                return String(line[..<cut.lowerBound])
            }
        }
        return line
    }
}

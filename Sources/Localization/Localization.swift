// Localization: every string a person sees goes through gettext, domain `fetchplay`.
//
//   tr("…")                    one message
//   trn("…", "…", n)           a message with a count (ngettext picks the plural form)
//   Localization.setUp()       once at start: the user's locale, and where the catalogues are
//
// Both take `StaticString`, so a message is always a literal that xgettext can extract (Swift
// interpolation does not even compile here); values go in with positional specifiers,
// `String(format: tr("%1$@ refused the connection"), host)`, so a translation may reorder them.
// `scripts/translations` regenerates `po/fetchplay.pot` from these calls and builds the `.mo`
// files into `share/locale` beside the binary's folder: `.build/<triple>/share/locale` in a
// checkout, `PREFIX/share/locale` once installed. `setUp` looks there.
import CIntl
import Glibc

/// The gettext domain of every Fetchplay message.
public let translationDomain = "fetchplay"

/// `message` in the user's language, or as written when there is no translation.
public func tr(_ message: StaticString) -> String {
    // gettext hands back the argument itself when there is no translation: read it in the closure.
    Localization.text(message).withCString { String(cString: dgettext(translationDomain, $0)) }
}

/// The form of `singular` / `plural` that fits `count` in the user's language.
public func trn(_ singular: StaticString, _ plural: StaticString, _ count: Int) -> String {
    let magnitude = UInt(clamping: count.magnitude)
    return Localization.text(singular).withCString { one in
        Localization.text(plural).withCString { many in
            String(cString: dngettext(translationDomain, one, many, magnitude))
        }
    }
}

public enum Localization {
    /// Takes the user's locale from the environment and binds the `fetchplay` domain to the
    /// catalogues beside the executable. Call once, first thing in `main`, before any thread
    /// starts (setlocale is not thread-safe).
    ///
    /// - Returns: the locale folder that was bound, or nil when none was found (messages stay
    ///   in English, nothing else changes).
    @discardableResult
    public static func setUp(executable: String = currentExecutable()) -> String? {
        setlocale(LC_ALL, "")
        // GOption, GTK and GLib's own messages are UTF-8 whatever the locale's charset is.
        bind_textdomain_codeset(translationDomain, "UTF-8")
        textdomain(translationDomain)
        guard let folder = localeFolder(besides: executable) else { return nil }
        bindtextdomain(translationDomain, folder)
        return folder
    }

    /// `BIN/../share/locale` for the executable at `BIN/fetchplay`, when that folder exists.
    ///
    /// The same rule serves an install (`PREFIX/bin` → `PREFIX/share/locale`) and a checkout,
    /// where the scripts build the catalogues into the build folder's `share/locale`.
    public static func localeFolder(besides executable: String) -> String? {
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let bin = String(executable[..<slash])
        let candidate = (bin.isEmpty ? "" : bin) + "/../share/locale"
        var status = stat()
        guard stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return candidate
    }

    /// The running executable's real path (symlinks resolved), or argv[0].
    public static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments.first ?? "." }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The literal's text. A `StaticString` of one scalar has no pointer, so go through the buffer.
    static func text(_ literal: StaticString) -> String {
        literal.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}

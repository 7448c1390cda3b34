import Foundation
import Localization

/// The Netscape cookie file that curl (`-c`), wget, yt-dlp and browser exporters write: one
/// cookie a line, seven fields separated by tabs (domain, whether subdomains match, path,
/// secure, expiry in seconds since 1970 with 0 for a session cookie, name, value). Lines that
/// start with `#` are comments, except `#HttpOnly_` before a domain, which marks an HttpOnly
/// cookie (sent like any other). Expired cookies are left out, and so is a cookie `Cookie`
/// refuses (a public suffix's, a bad name or value), with a warning naming its line; a line
/// that is no Netscape line refuses the file.
public enum CookieFile {
    /// Bytes a cookie file may have at most; a browser's whole store is far smaller.
    static let maxBytes = 16 << 20
    /// Cookies kept from one file at most.
    static let maxCookies = 50_000

    /// The cookies in the file at `path` that have not expired by `now`.
    public static func read(_ path: String, now: Date = Date()) throws(RequestContextError) -> [Cookie] {
        // A file of the person's, not of Fetchplay's folders: a symlink to it is fine. At most
        // one byte past the limit is read, so a huge or endless file (a FIFO, /dev/zero) is
        // refused without being read whole.
        guard let handle = FileHandle(forReadingAtPath: path),
              let data = try? handle.read(upToCount: maxBytes + 1) ?? Data() else {
            // TRANSLATORS: %1$@ is a file's path.
            throw RequestContextError(String(format: tr("The cookie file %1$@ cannot be read; check its path and that it is yours."), path))
        }
        try? handle.close()
        return try parse(data, name: path, now: now)
    }

    /// The cookies in `data`, the contents of a cookie file (named `name` in messages).
    public static func parse(_ data: Data, name: String, now: Date = Date()) throws(RequestContextError) -> [Cookie] {
        guard data.count <= maxBytes else {
            throw RequestContextError(String(format: tr("The cookie file %1$@ is larger than 16 MB; export only the site’s cookies."), name))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw RequestContextError(String(format: tr("The cookie file %1$@ is not text; give a Netscape cookies.txt file."), name))
        }
        var cookies: [Cookie] = []
        // A String's CRLF is one Character, not "\n": split on both, or a file written on Windows
        // is one line (a comment when it starts with one, and then no cookie at all).
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            var line = Substring(rawLine)
            if line.hasPrefix("#HttpOnly_") {
                line.removeFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                continue
            }
            let parsed: Result<Cookie, RequestContextError>
            do throws(RequestContextError) {
                parsed = try parseLine(line)
            } catch {
                // TRANSLATORS: %1$@ is a file's path, %2$ld a line number.
                throw RequestContextError(String(format: tr("Line %2$ld of the cookie file %1$@ is not a Netscape cookie line (seven fields separated by tabs)."),
                                                 name, index + 1))
            }
            let cookie: Cookie
            switch parsed {
            case .success(let good): cookie = good
            case .failure(let refusal):
                // One cookie no request may carry (a public suffix's, a name with a space) costs
                // that cookie only, as in a browser's message. Never the line's text: a value.
                Log.warning("skipping line \(index + 1) of the cookie file \(name): \(refusal.message)")
                continue
            }
            if let expires = cookie.expires, expires <= now { continue }
            guard cookies.count < maxCookies else {
                throw RequestContextError(String(format: tr("The cookie file %1$@ holds more than 50,000 cookies; export only the site’s cookies."), name))
            }
            cookies.append(cookie)
        }
        return cookies
    }

    /// The cookie of a Netscape line, or why it is refused (`Cookie.init`); throws when the
    /// line is no Netscape line at all, which means the file is not a cookie file.
    private static func parseLine(_ line: Substring) throws(RequestContextError) -> Result<Cookie, RequestContextError> {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        // Some writers leave the tab before an empty value out.
        guard fields.count == 7 || fields.count == 6 else { throw RequestContextError("") }
        func flag(_ text: Substring) throws(RequestContextError) -> Bool {
            switch text.uppercased() {
            case "TRUE": return true
            case "FALSE": return false
            default: throw RequestContextError("")
            }
        }
        guard let seconds = Int64(fields[4]), seconds >= 0 else { throw RequestContextError("") }
        let includesSubdomains = try flag(fields[1]), secure = try flag(fields[3])
        return Result { () throws(RequestContextError) in
            try Cookie(name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "",
                       domain: String(fields[0]), includesSubdomains: includesSubdomains, path: String(fields[2]),
                       secure: secure,
                       expires: seconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(min(seconds, 1 << 40))))
        }
    }
}

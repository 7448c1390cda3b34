import Foundation

extension Cookie {
    /// The cookie a `Set-Cookie` header of an answer from `url` sets (RFC 6265 §5.2 and §5.3),
    /// with the rules a browser keeps for it: a host-only cookie without `Domain`, the request's
    /// directory as the default path, `Secure`, and `Max-Age` before `Expires`. `HttpOnly` ones
    /// are kept too (they are meant for requests, which is all Fetchplay makes). Nil for a line
    /// a browser would ignore: no `=`, a name or value no cookie can have, a `Domain` the host is
    /// not under or that is a public suffix.
    init?(setCookie line: String, from url: String, now: Date = Date()) {
        guard let parts = try? URLParts(url) else { return nil }
        let pieces = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = pieces.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        var domain: String?
        var path: String?
        var secure = false
        var maxAge: Date?
        var expires: Date?
        for attribute in pieces.dropFirst() {
            let split = attribute.split(separator: "=", maxSplits: 1)
            let key = split.first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let argument = split.count > 1 ? split[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "domain" where !argument.isEmpty:
                domain = argument.hasPrefix(".") ? String(argument.dropFirst()).lowercased() : argument.lowercased()
            case "path" where argument.hasPrefix("/"):
                path = argument
            case "secure":
                secure = true
            case "max-age":
                if let seconds = Int(argument) { maxAge = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(Double(min(seconds, 400 * 86_400))) }
            case "expires":
                expires = Self.httpDate(argument)
            default:
                break
            }
        }
        let host = parts.host
        if let domain {
            // The answer's host must be the domain or under it (§5.3 step 6).
            guard host == domain || host.hasSuffix("." + domain) else { return nil }
        }
        // §5.1.4: the request's path up to its last `/`.
        let defaultPath: String = {
            guard let slash = parts.path.lastIndex(of: "/"), slash != parts.path.startIndex else { return "/" }
            return String(parts.path[..<slash])
        }()
        guard let cookie = try? Cookie(name: name, value: value, domain: domain ?? host, includesSubdomains: domain != nil,
                                       path: path ?? defaultPath, secure: secure, expires: maxAge ?? expires) else { return nil }
        self = cookie
    }

    /// An HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`, and the older spellings browsers accept).
    private static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz",
                       "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

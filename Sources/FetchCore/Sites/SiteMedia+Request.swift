import Foundation

extension SiteMedia.Format {
    /// What its requests carry: its own `http_headers` and `cookies`, bound to its link's host
    /// as a person's headers are (`RequestContext.fields`, with the format's link as origin),
    /// and of the page's context only what may go there: cookies by their own rules, the proxy,
    /// and the headers and cookie header a person gave when the format is on the page's host.
    func context(page: RequestContext, pageURL: String) -> RequestContext {
        var context = RequestContext()
        context.proxy = page.proxy
        context.source = page.source
        context.isPrivate = page.isPrivate
        context.userAgent = page.userAgent
        context.referer = page.referer ?? pageURL
        if RedirectRule.isSameHost(url, pageURL) {
            context.headers = page.headers
            context.cookieHeader = page.cookieHeader
        }
        for field in httpHeaders {
            switch field.name.lowercased() {
            case "user-agent": context.userAgent = field.value
            case "referer": context.referer = field.value
            case "cookie": context.cookieHeader = RequestContext.cookieHeader(checking: field.value)
            default:
                context.headers.removeAll { $0.name.lowercased() == field.name.lowercased() }
                context.headers.append(field)
            }
        }
        context.cookies = page.cookies
        for cookie in Self.cookies(cookies ?? "", from: url) {
            context.cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            context.cookies.append(cookie)
        }
        return context
    }

    /// Attributes of a `Set-Cookie` line, which never start a cookie of their own.
    private static let attributes: Set<String> = ["domain", "path", "secure", "expires", "max-age", "httponly", "samesite"]

    /// yt-dlp's `cookies` string (`a=1; Domain=.example.com; Path=/; b=2; …`) as cookies, each
    /// judged as a browser judges a `Set-Cookie` from `url`: one whose domain `url`'s host is not
    /// under is dropped, so a format cannot hand cookies to another site.
    static func cookies(_ text: String, from url: String, now: Date = Date()) -> [Cookie] {
        var lines: [String] = []
        for piece in text.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !piece.isEmpty {
            let name = piece.split(separator: "=", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
            if attributes.contains(name), !lines.isEmpty {
                lines[lines.count - 1] += "; " + piece
            } else if piece.contains("=") {
                lines.append(piece)
            }
        }
        return lines.compactMap { Cookie(setCookie: $0, from: url, now: now) }
    }
}

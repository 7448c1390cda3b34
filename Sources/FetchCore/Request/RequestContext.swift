// Request: what a page knew about a link, sent with every request of its download.
//
//   RequestContext   headers, cookies, referer, user agent and proxy of one download
//   ├─ HeaderField   one `Name: value` a person gave, checked before it can reach a request
//   ├─ Cookie        one cookie with its domain, path, secure and expiry rules (RFC 6265 §5.4)
//   ├─ CookieFile    the Netscape cookies.txt that curl, wget, yt-dlp and browser exporters write
//   └─ ProxySetting  the environment's proxy, none, one given by hand, or the desktop's
//   RedirectRule     the next hop of a redirect, and what may follow it there
//   Cache+Context    the context kept beside the partial, readable by its owner only
//
// The secrets here (cookie values, header values, proxy passwords) never reach a message, a log
// or the window: only `summary` describes a context, and it names no value.
import Foundation
import Localization

/// Everything a download's requests carry besides the link: the page's cookies, its address as
/// Referer, the browser's User-Agent, the headers a person added, and the proxy to go through.
///
/// Host-bound parts (the headers a person gave and a cookie header given by hand) go only to the
/// link's own host: a redirect, a playlist, a key or a segment on another host never gets them.
/// Cookies with domain rules (a cookie file, the browser's cookie store) go wherever their rules
/// allow. The Referer goes as a browser sends it; User-Agent everywhere. Nothing goes from an
/// https link down to http.
public struct RequestContext: Codable, Sendable, Equatable {
    /// Where a context came from, for the window to say so (never what it holds).
    public enum Source: String, Codable, Sendable { case person, browser }

    /// Extra header fields, in the order given; sent to the link's host only.
    public var headers: [HeaderField] = []
    /// A `Cookie` header given by hand (`a=b; c=d`); sent to the link's host only.
    public var cookieHeader: String?
    /// Cookies with their own rules (a cookie file, the browser).
    public var cookies: [Cookie] = []
    public var referer: String?
    public var userAgent: String?
    /// A proxy for this download alone; nil: the app's (`DownloadOptions.proxy`).
    public var proxy: ProxySetting?
    public var source: Source = .person
    /// The file name the browser would have saved the link under.
    public var suggestedName: String?
    /// From a private window: kept in memory only, never written to disk (`Cache.keepContext`),
    /// and so never encoded (`CodingKeys` leaves it out).
    public var isPrivate = false
    /// The web page this download's media was found on, and the media's link; nil for a link
    /// that is itself the media.
    public var page: PageSource?
    /// What yt-dlp found for it, when site support read its page (`SiteSource`).
    public var site: SiteSource?
    /// True: only its audio is saved (the chooser's switch), kept with the partial so a
    /// continue after a quit saves the same; nil: what the options say.
    public var audioOnly: Bool?

    public init() {}

    /// Nothing beyond what Fetchplay sends by itself.
    public var isEmpty: Bool { self == RequestContext() }

    /// Whether any part of it is a secret worth a mention ("with the page's cookies").
    public var carriesSecrets: Bool { !headers.isEmpty || cookieHeader != nil || !cookies.isEmpty || proxy?.hasPassword == true }

    /// The header lines a request to `url` carries from this context, when the download's link
    /// is `origin`. Cookies from a store are matched to `url` (expired ones are never sent); the
    /// host-bound parts only when `url` is on `origin`'s host; the Referer as a browser sends it
    /// (`referer(_:for:)`). Nothing at all goes over plain http once the link was https: a
    /// playlist served over https that names an http segment gets it fetched bare.
    public func fields(for url: String, origin: String, now: Date = Date()) -> [String] {
        guard !Self.isDowngrade(from: origin, to: url) else { return [] }
        let sameHost = RedirectRule.isSameHost(url, origin)
        var lines: [String] = []
        if sameHost { lines += headers.map(\.line) }
        var cookiePairs = Cookie.matching(cookies, url: url, now: now).map(\.pair)
        if sameHost, let cookieHeader, !cookieHeader.isEmpty { cookiePairs.insert(cookieHeader, at: 0) }
        if !cookiePairs.isEmpty { lines.append("Cookie: " + cookiePairs.joined(separator: "; ")) }
        if let referer, let value = Self.referer(referer, for: url) { lines.append("Referer: " + value) }
        return lines
    }

    /// The Referer a request to `url` carries from the page `page`, as browsers send it by
    /// default (`strict-origin-when-cross-origin`): the whole address, without a user,
    /// password or fragment, to the page's own origin; only its origin (`https://host:port/`)
    /// to another; nothing from https down to http, nor from a page that is no web page.
    static func referer(_ page: String, for url: String) -> String? {
        guard let from = try? URLParts(page), let to = try? URLParts(url), ["http", "https"].contains(from.scheme),
              !isDowngrade(from: page, to: url) else { return nil }
        var bare = from
        bare.user = nil
        bare.password = nil
        let sameOrigin = from.scheme == to.scheme && from.host == to.host && from.port == to.port
        guard !sameOrigin else { return bare.normalized(keepingPassword: false) }
        let port: String = bare.port.map { ":\($0)" } ?? ""
        return "\(bare.scheme)://\(bare.host)\(port)/"
    }

    /// Whether a request to `url` would go down to plain http from an https `origin`.
    static func isDowngrade(from origin: String, to url: String) -> Bool {
        origin.lowercased().hasPrefix("https:") && url.lowercased().hasPrefix("http:")
    }

    /// A `Cookie` header given by hand (`a=b; c=d`), in one spelling; nil when a pair is no
    /// cookie (no `=`, a name that is no token, a control character or `;` in a value).
    public static func cookieHeader(checking text: String) -> String? {
        let pairs = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !pairs.isEmpty, text.utf8.count <= 64 << 10, pairs.allSatisfy({ pair in
            guard let equals = pair.firstIndex(of: "=") else { return false }
            return Cookie.isValid(name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]))
        }) else { return nil }
        return pairs.joined(separator: "; ")
    }

    /// What the window may say about the context: which kinds of things it holds, no value.
    public var summary: String {
        var parts: [String] = []
        let cookieCount = cookies.count + (cookieHeader?.split(separator: ";").count ?? 0)
        if cookieCount > 0 { parts.append(String(format: trn("%1$ld cookie", "%1$ld cookies", cookieCount), cookieCount)) }
        if referer != nil { parts.append(tr("the page’s address")) }
        if userAgent != nil { parts.append(tr("the browser’s user agent")) }
        if !headers.isEmpty { parts.append(String(format: trn("%1$ld header", "%1$ld headers", headers.count), headers.count)) }
        if proxy != nil { parts.append(tr("a proxy")) }
        let list = parts.joined(separator: ", ")
        switch source {
        case .browser:
            // TRANSLATORS: %1$@ lists what the page gave, such as "3 cookies, the page’s address".
            return parts.isEmpty ? tr("From the browser.") : String(format: tr("From the browser, with %1$@."), list)
        case .person:
            // TRANSLATORS: %1$@ lists what the request carries, such as "2 cookies, 1 header".
            return parts.isEmpty ? "" : String(format: tr("Sent with %1$@."), list)
        }
    }
}

/// Why a part of a request context cannot be used: one sentence a person can act on.
public struct RequestContextError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

import CGLib
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// Which proxy a download's requests go through.
public enum ProxySetting: Codable, Sendable, Equatable {
    /// The environment's `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, as libcurl
    /// reads them (the command line's default).
    case environment
    /// No proxy at all, whatever the environment says.
    case direct
    /// One proxy given by hand: `http://`, `https://`, `socks5://` or `socks5h://`, with a user
    /// and password if it needs them (kept secret).
    case manual(String)
    /// The desktop's setting, as GLib's proxy resolver reads it for each link (the window's
    /// default); where it says "direct", the environment's still applies.
    case desktop

    static let schemes = ["http", "https", "socks5", "socks5h", "socks4", "socks4a"]

    /// A proxy URL given by hand, checked: a scheme libcurl takes for a proxy, and a host.
    public static func manual(checking text: String) throws(RequestContextError) -> ProxySetting {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.range(of: "://") else {
            // TRANSLATORS: keep --proxy and the schemes as they are.
            throw RequestContextError(tr("A proxy is given as a URL: http://HOST:PORT, https://…, socks5://… or socks5h://…."))
        }
        let scheme = trimmed[..<colon.lowerBound].lowercased()
        guard schemes.contains(scheme) else {
            // TRANSLATORS: %1$@ is the scheme given, such as ftp.
            throw RequestContextError(String(format: tr("Fetchplay cannot use a %1$@ proxy; give an http, https or socks5 proxy."), scheme))
        }
        guard let parts = Self.parts(of: trimmed), !parts.host.isEmpty,
              HeaderField.isSafeValue(trimmed), trimmed.utf8.count <= 2048 else {
            throw RequestContextError(tr("The proxy’s address is not a URL with a host name."))
        }
        return .manual(trimmed)
    }

    var hasPassword: Bool {
        guard case .manual(let url) = self else { return false }
        return Self.parts(of: url)?.password != nil
    }

    /// A proxy URL's host, port, user and password. libcurl's URL parser refuses the schemes it
    /// cannot fetch (socks5, socks4…), so the URL is read as an http one: only those parts count.
    static func parts(of proxy: String) -> URLParts? {
        guard let separator = proxy.range(of: "://") else { return try? URLParts("http://" + proxy) }
        return try? URLParts("http" + proxy[separator.lowerBound...])
    }

    /// The proxy a request to `url` goes through, with credentials, for libcurl; nil: libcurl's
    /// own choice (the environment's); "": none at all.
    func proxy(for url: String) -> String? {
        switch self {
        case .environment: return nil
        case .direct: return ""
        case .manual(let proxy): return proxy
        case .desktop: return Self.desktopProxy(for: url)
        }
    }

    /// The desktop's proxy for `url` (GProxyResolver); nil where it says "direct" or cannot tell.
    /// It may block (a PAC script): never called on a main thread.
    private static func desktopProxy(for url: String) -> String? {
        guard let resolver = g_proxy_resolver_get_default() else { return nil }
        // Its error (no network, a PAC script failing) is the same answer: cannot tell.
        guard let list = try? GLibError.check({ g_proxy_resolver_lookup(resolver, url, nil, $0) }) else { return nil }
        defer { g_strfreev(list) }
        guard let first = list[0] else { return nil }
        let proxy = String(cString: first)
        guard let colon = proxy.range(of: "://"), schemes.contains(proxy[..<colon.lowerBound].lowercased()) else { return nil }
        return proxy
    }

    /// The proxy a request to `url` goes through, as people may see it (no password); nil for
    /// none. For the environment's, what libcurl will read (its variables, by `url`'s scheme).
    func displayName(for url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let proxy: String?
        switch self {
        case .environment:
            let isHTTPS = url.lowercased().hasPrefix("https:")
            // libcurl reads `http_proxy` in lower case only; the others in either case.
            let names = isHTTPS ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
            proxy = names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        default:
            proxy = self.proxy(for: url)
        }
        guard let proxy, !proxy.isEmpty else { return nil }
        guard let parts = Self.parts(of: proxy) else { return tr("the proxy") }
        return parts.host + (parts.port.map { ":" + $0 } ?? "")
    }

    /// The setting as one string (a context file, `settings.ini`): "environment", "direct",
    /// "desktop", or the manual proxy's URL.
    public var settingsText: String {
        switch self {
        case .environment: "environment"
        case .direct: "direct"
        case .desktop: "desktop"
        case .manual(let url): url
        }
    }

    /// The setting `settingsText` wrote; nil for text that is none (a proxy URL is checked).
    public init?(settingsText text: String) {
        switch text {
        case "environment": self = .environment
        case "direct": self = .direct
        case "desktop": self = .desktop
        default:
            guard let manual = try? Self.manual(checking: text) else { return nil }
            self = manual
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let setting = ProxySetting(settingsText: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a proxy setting"))
        }
        self = setting
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(settingsText)
    }
}

/// The app's proxy setting as it is now, shared by every download (the command line's is the
/// environment's; the window's follows Preferences): each request reads it when it is aimed.
public final class ProxyPreference: Sendable {
    private let value: Locked<ProxySetting>

    public init(_ setting: ProxySetting = .environment) { value = Locked(setting) }

    public var setting: ProxySetting {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

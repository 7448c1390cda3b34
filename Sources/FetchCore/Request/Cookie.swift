import Foundation
import Localization

/// One cookie with the rules that decide which requests carry it (RFC 6265 §5.4): its domain
/// (the host alone, or the host and every host below it), its path, whether it goes only over
/// https, and when it expires. A cookie for every host under a public suffix is refused.
public struct Cookie: Codable, Sendable, Equatable {
    public let name: String
    public let value: String
    /// Lower case, without a leading dot.
    public let domain: String
    /// False: only `domain` itself; true: `domain` and every host below it.
    public let includesSubdomains: Bool
    public let path: String
    public let secure: Bool
    /// Nil: a session cookie, which lasts as long as the download.
    public let expires: Date?

    /// Bytes a cookie's name and value may have together (browsers keep at most 4096).
    static let maxBytes = 4096

    public init(name: String, value: String, domain: String, includesSubdomains: Bool, path: String,
                secure: Bool, expires: Date?) throws(RequestContextError) {
        var domain = domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        guard Self.isValid(name: name, value: value) else {
            throw RequestContextError(tr("A cookie’s name or value holds characters a cookie cannot have."))
        }
        // A cookie for a public suffix (`.com`, `.co.uk`, `.github.io`) would go to every site
        // under it. Only a host-only one may name such a domain, as RFC 6265 §5.3 step 5
        // allows when it is the request's host itself (a site that is a suffix, `github.io`).
        guard HostName.isSpelledAsHost(domain), !(includesSubdomains && HostName.isPublicSuffix(domain)) else {
            throw RequestContextError(tr("A cookie has no usable domain."))
        }
        self.name = name
        self.value = value
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.path = path.hasPrefix("/") ? path : "/"
        self.secure = secure
        self.expires = expires
    }

    /// Whether `name=value` can go into a `Cookie` header as one cookie.
    public static func isValid(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.count + value.utf8.count <= maxBytes && name.utf8.allSatisfy(HeaderField.isTokenByte)
            && value.utf8.allSatisfy(isValueByte)
    }

    /// What a value may hold in a `Cookie` header: no control character (a CR or LF would end
    /// the header), no `;` (it would start another cookie). Browsers let spaces, commas and
    /// UTF-8 through, so they pass too.
    static func isValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F && byte != 0x3B
    }

    var pair: String { "\(name)=\(value)" }

    /// The cookies a request to `url` carries, longer paths first (RFC 6265 §5.4 step 2).
    static func matching(_ cookies: [Cookie], url: String, now: Date) -> [Cookie] {
        guard !cookies.isEmpty, let parts = try? URLParts(url) else { return [] }
        let isSecure = parts.scheme == "https"
        return cookies.filter { cookie in
            if let expires = cookie.expires, expires <= now { return false }
            if cookie.secure, !isSecure { return false }
            return cookie.matches(host: parts.host) && cookie.matches(path: parts.path)
        }.sorted { $0.path.count > $1.path.count }
    }

    /// RFC 6265 §5.1.3: the host itself, or (with subdomains) a host that ends in `.domain`,
    /// never a numeric address's tail.
    func matches(host: String) -> Bool {
        if host == domain { return true }
        guard includesSubdomains, host.hasSuffix("." + domain) else { return false }
        return !host.allSatisfy { $0.isNumber || $0 == "." } && !host.hasPrefix("[")
    }

    /// RFC 6265 §5.1.4.
    func matches(path requestPath: String) -> Bool {
        let requestPath = requestPath.isEmpty ? "/" : requestPath
        guard requestPath.hasPrefix(path) else { return false }
        return requestPath.count == path.count || path.hasSuffix("/")
            || requestPath[requestPath.index(requestPath.startIndex, offsetBy: path.count)] == "/"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(name: container.decode(String.self, forKey: .name), value: container.decode(String.self, forKey: .value),
                      domain: container.decode(String.self, forKey: .domain),
                      includesSubdomains: container.decode(Bool.self, forKey: .includesSubdomains),
                      path: container.decode(String.self, forKey: .path), secure: container.decode(Bool.self, forKey: .secure),
                      expires: container.decodeIfPresent(Date.self, forKey: .expires))
    }
}

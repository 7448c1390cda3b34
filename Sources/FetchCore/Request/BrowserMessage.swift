import Foundation
import Localization

/// A message from Fetchplay's browser extension, checked before anything acts on it: what the
/// native host reads on its standard input and the window takes from the session bus. Both
/// run every message through `parse`, the one validating function; nothing in a message is
/// ever evaluated, and a message that does not pass is refused whole.
public enum BrowserMessage: Sendable, Equatable {
    /// The popup asks whether the host is installed.
    case ping
    /// Download `url` with what the page knew (`context.source` is `.browser`).
    case download(url: String, context: RequestContext)

    /// Bytes a message may have (native messaging's own limit towards a host is 4 GiB).
    public static let maxBytes = 1 << 20
    static let maxURLBytes = 8 << 10
    static let maxUserAgentBytes = 1 << 10
    static let maxFileNameBytes = 255
    static let maxCookies = 300

    /// The message in `data` (UTF-8 JSON), checked against the schema the extension sends.
    public static func parse(_ data: Data) throws(RequestContextError) -> BrowserMessage {
        guard data.count <= maxBytes else { throw RequestContextError(tr("The browser’s message is larger than 1 MiB.")) }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: []) as? [String: Any] else {
            throw RequestContextError(tr("The browser’s message is not a JSON object."))
        }
        switch object["type"] as? String {
        case "ping": return .ping
        case "download": return try download(object)
        default: throw RequestContextError(tr("The browser’s message asks for nothing Fetchplay does."))
        }
    }

    private static func download(_ object: [String: Any]) throws(RequestContextError) -> BrowserMessage {
        guard let text = object["url"] as? String, text.utf8.count <= maxURLBytes, HeaderField.isSafeValue(text),
              let url = try? WebAddress.validate(text) else {
            throw RequestContextError(tr("The browser sent a link Fetchplay cannot download: only http and https links."))
        }
        var context = RequestContext()
        context.source = .browser
        // A page that is no web page (a file, the browser's own) is no Referer.
        if let referrer = try string(object, "referrer", limit: maxURLBytes), !referrer.isEmpty,
           let page = try? WebAddress.validate(referrer), page.hasPrefix("http") {
            context.referer = page
        }
        context.userAgent = try string(object, "userAgent", limit: maxUserAgentBytes).flatMap { $0.isEmpty ? nil : $0 }
        if let name = try string(object, "fileName", limit: maxFileNameBytes * 4) {
            // The base name only: a path from the browser never picks a folder.
            let base = name.split(separator: "/").last.map(String.init) ?? ""
            if !base.isEmpty, base != ".", base != "..", base.utf8.count <= maxFileNameBytes { context.suggestedName = base }
        }
        if let cookies = object["cookies"] {
            guard let list = cookies as? [Any], list.count <= maxCookies else {
                throw RequestContextError(tr("The browser sent more than 300 cookies, or no list of them."))
            }
            // One cookie the browser keeps but no request can carry (a nameless one, a name no
            // token, a bad domain, a flag of the wrong type) is left out, not the whole link:
            // leaving a cookie out never sends more than the page would.
            context.cookies = list.compactMap(cookie)
        }
        // A download from a private window (or its cookies) must not outlive the session.
        guard let isPrivate = flag(object, "private") else {
            // TRANSLATORS: keep "private", true and false as they are (JSON).
            throw RequestContextError(tr("The browser’s “private” field is neither true nor false."))
        }
        context.isPrivate = isPrivate ?? false
        return .download(url: url, context: context)
    }

    /// `object[key]` when it is a string of at most `limit` bytes without control characters.
    private static func string(_ object: [String: Any], _ key: String, limit: Int) throws(RequestContextError) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String, text.utf8.count <= limit, text.isEmpty || HeaderField.isSafeValue(text) else {
            throw RequestContextError(tr("The browser sent a field Fetchplay cannot use (too long, or with control characters)."))
        }
        return text
    }

    /// A cookie as `chrome.cookies.getAll` gives it; nil when no request could carry it. Other
    /// keys (sameSite, storeId…) are left.
    private static func cookie(_ entry: Any) -> Cookie? {
        guard let fields = entry as? [String: Any], let name = fields["name"] as? String, let value = fields["value"] as? String,
              let domain = fields["domain"] as? String else { return nil }
        // A flag of the wrong type leaves the cookie out, not read as false: a `secure` cookie
        // taken as plain would go out over http.
        guard let hostOnly = flag(fields, "hostOnly"), let secure = flag(fields, "secure"), let session = flag(fields, "session"),
              fields["path"] == nil || fields["path"] is String,
              fields["expirationDate"] == nil || fields["expirationDate"] is Double else { return nil }
        // Whole seconds, as cookie files keep them: a fraction would not come back the same
        // through Date's own epoch (the window reads the host's re-encoded message).
        let expires = (fields["expirationDate"] as? Double).map { Date(timeIntervalSince1970: min(max($0, 0), 1e12).rounded(.down)) }
        return try? Cookie(name: name, value: value, domain: domain, includesSubdomains: !(hostOnly ?? !domain.hasPrefix(".")),
                           path: fields["path"] as? String ?? "/", secure: secure ?? false,
                           expires: session ?? false ? nil : expires)
    }

    /// `fields[key]` as a JSON boolean: `.some(nil)` when absent, nil when of another type.
    /// `as? Bool` would take the numbers 0 and 1 too, so the number's own type is read:
    /// Foundation keeps a JSON `true` or `false` as a char ("c"), and never a JSON number.
    private static func flag(_ fields: [String: Any], _ key: String) -> Bool?? {
        guard let value = fields[key] else { return .some(nil) }
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
        return .some(number.boolValue)
    }

    /// The message for the session bus: only what `parse` took, re-encoded.
    public var encoded: Data {
        var object: [String: Any] = [:]
        switch self {
        case .ping:
            object["type"] = "ping"
        case .download(let url, let context):
            object["type"] = "download"
            object["url"] = url
            object["referrer"] = context.referer
            object["userAgent"] = context.userAgent
            object["fileName"] = context.suggestedName
            if context.isPrivate { object["private"] = true }
            object["cookies"] = context.cookies.map { cookie -> [String: Any] in
                var fields: [String: Any] = ["name": cookie.name, "value": cookie.value, "domain": cookie.domain,
                                             "hostOnly": !cookie.includesSubdomains, "path": cookie.path, "secure": cookie.secure]
                if let expires = cookie.expires { fields["expirationDate"] = expires.timeIntervalSince1970 } else { fields["session"] = true }
                return fields
            }
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}

import FetchCore
import Foundation
import Localization

/// The request-context options of `--download`: `--header`, `--cookie`, `--cookies`,
/// `--referer`, `--user-agent`, `--proxy`.
enum RequestOptions {
    static let names = ["header", "cookie", "cookies", "referer", "user-agent", "proxy"]

    /// The context the options give, checked; nil when none is given (the download then sends
    /// what it sent before). Given ones replace everything kept, not only what they name.
    static func context(_ options: ParsedOptions) throws(RequestContextError) -> RequestContext? {
        guard names.contains(where: { !options.strings($0).isEmpty || options.string($0) != nil }) else { return nil }
        var context = RequestContext()
        for line in options.strings("header") {
            let field = try HeaderField(line: line)
            // These two go to every host a redirect leads to, like a browser's.
            switch field.name.lowercased() {
            case "referer": context.referer = try referer(field.value)
            case "user-agent": context.userAgent = try userAgent(field.value)
            case "cookie": context.cookieHeader = try cookieHeader(field.value)
            default: context.headers.append(field)
            }
        }
        if let cookie = options.string("cookie") { context.cookieHeader = try cookieHeader(cookie) }
        if let file = options.string("cookies") { context.cookies = try CookieFile.read(file) }
        if let text = options.string("referer") { context.referer = try referer(text) }
        if let text = options.string("user-agent") { context.userAgent = try userAgent(text) }
        if let text = options.string("proxy") { context.proxy = try ProxySetting.manual(checking: text) }
        return context
    }

    static func referer(_ text: String) throws(RequestContextError) -> String {
        guard let url = try? WebAddress.validate(text), text.utf8.count <= 8192 else {
            // TRANSLATORS: keep --referer as it is.
            throw RequestContextError(tr("--referer takes the address of a page, starting with http:// or https://."))
        }
        return url
    }

    static func userAgent(_ text: String) throws(RequestContextError) -> String {
        guard !text.isEmpty, text.utf8.count <= 1024, HeaderField.isSafeValue(text) else {
            throw RequestContextError(tr("A user agent is one line of at most 1 KiB."))
        }
        return text
    }

    static func cookieHeader(_ text: String) throws(RequestContextError) -> String {
        guard let header = RequestContext.cookieHeader(checking: text) else {
            // TRANSLATORS: keep --cookie and "A=B; C=D" as they are.
            throw RequestContextError(tr("--cookie takes cookies as \"A=B; C=D\": a name, =, a value, separated by semicolons."))
        }
        return header
    }
}

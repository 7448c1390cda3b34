import FetchCore
import Foundation
import Localization

/// The request-context options of `--download`: `--header`, `--cookie`, `--cookies`,
/// `--referer`, `--user-agent`, `--proxy`, `--proxy-file`.
///
/// Arguments are readable by every local user (`/proc/PID/cmdline`), so each secret has a file
/// form that keeps it out of them (`SecretFile`): `--cookie @FILE`, `--header @FILE`,
/// `--proxy-file FILE`, and the environment's `FETCHPLAY_PROXY` (see `environmentProxy`).
enum RequestOptions {
    static let names = ["header", "cookie", "cookies", "referer", "user-agent", "proxy", "proxy-file"]
    /// The environment variable that names a proxy like `--proxy`, out of the arguments.
    static let proxyVariable = "FETCHPLAY_PROXY"

    /// The context the options give, checked; nil when none is given (the download then sends
    /// what it sent before). Given ones replace everything kept, not only what they name.
    static func context(_ options: ParsedOptions) throws(RequestContextError) -> RequestContext? {
        guard names.contains(where: { !options.strings($0).isEmpty || options.string($0) != nil }) else { return nil }
        var context = RequestContext()
        var lines: [String] = []
        for value in options.strings("header") { lines += try headerLines(value) }
        for line in lines {
            let field = try HeaderField(line: line)
            // These two go to every host a redirect leads to, like a browser's.
            switch field.name.lowercased() {
            case "referer": context.referer = try referer(field.value)
            case "user-agent": context.userAgent = try userAgent(field.value)
            case "cookie": context.cookieHeader = try cookieHeader(field.value)
            default: context.headers.append(field)
            }
        }
        if let cookie = options.string("cookie") {
            context.cookieHeader = try cookieHeader(cookie.hasPrefix("@") ? SecretFile.line(String(cookie.dropFirst())) : cookie)
        }
        if let file = options.string("cookies") { context.cookies = try CookieFile.read(file) }
        if let text = options.string("referer") { context.referer = try referer(text) }
        if let text = options.string("user-agent") { context.userAgent = try userAgent(text) }
        if options.string("proxy") != nil, options.string("proxy-file") != nil {
            // TRANSLATORS: keep --proxy and --proxy-file as they are.
            throw RequestContextError(tr("Give --proxy or --proxy-file, not both."))
        }
        if let text = options.string("proxy") { context.proxy = try ProxySetting.manual(checking: text) }
        if let file = options.string("proxy-file") { context.proxy = try ProxySetting.manual(checking: SecretFile.line(file)) }
        return context
    }

    /// `--header` values: a line, or with `@FILE` the lines of FILE.
    private static func headerLines(_ value: String) throws(RequestContextError) -> [String] {
        value.hasPrefix("@") ? try SecretFile.headerLines(String(value.dropFirst())) : [value]
    }

    /// The proxy `FETCHPLAY_PROXY` names, for the whole run; nil when unset or empty. It is the
    /// app's proxy rather than a part of the context, so it ranks below `--proxy`, `--proxy-file`
    /// and a proxy kept with the partial, and setting it never replaces the cookies kept.
    static func environmentProxy(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(RequestContextError) -> ProxySetting? {
        guard let text = environment[proxyVariable], !text.isEmpty else { return nil }
        do {
            return try ProxySetting.manual(checking: text)
        } catch {
            // TRANSLATORS: keep FETCHPLAY_PROXY as it is; %1$@ says what is wrong with it.
            throw RequestContextError(String(format: tr("FETCHPLAY_PROXY: %1$@"), error.message))
        }
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

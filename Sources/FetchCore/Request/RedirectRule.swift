import Foundation
import Localization

/// Redirects, followed by the engine itself rather than by libcurl, so that it decides what each
/// host is sent: http and https only, never down from https to http, at most
/// `DownloadOptions.maxRedirects` hops; the headers and hand-given cookies of a request context
/// stay with the link's host (`RequestContext.fields`).
enum RedirectRule {
    /// Whether an answer is a redirect to follow: a 3xx that names where to go.
    static func isRedirect(status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The next hop from `current` to `target` (libcurl's absolute form of `Location`), the
    /// `hops`th redirect of this request.
    static func next(from current: String, to target: String?, hops: Int, limit: Int) throws(DownloadError) -> String {
        guard hops <= limit else { throw .tooManyRedirects }
        guard let target else { throw .badResponse(tr("it redirected without saying where")) }
        let next = try WebAddress.validate(target)
        if current.lowercased().hasPrefix("https:"), next.hasPrefix("http:") {
            // The same words libcurl had for it when it followed redirects.
            throw .unsupportedScheme("http")
        }
        return next
    }

    /// Whether `url` is on the same host as `origin`: the same name, and the same port, or
    /// http's upgraded to https's (a site that moves its links to https stays itself).
    static func isSameHost(_ url: String, _ origin: String) -> Bool {
        guard let a = try? URLParts(url), let b = try? URLParts(origin), a.host == b.host else { return false }
        func port(_ parts: URLParts) -> String { parts.port ?? (parts.scheme == "https" ? "443" : "80") }
        if port(a) == port(b) { return true }
        return b.scheme == "http" && port(b) == "80" && a.scheme == "https" && port(a) == "443"
    }
}

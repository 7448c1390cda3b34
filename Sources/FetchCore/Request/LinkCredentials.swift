import Foundation

/// The user name and password a link carries (`https://user:password@host/v.m3u8`).
///
/// They belong to the link's host, like the hand-given parts of a request context: a playlist,
/// key or segment on that host gets them, one on another host (a CDN) or down at plain http
/// never does. They live in memory only: a presentation keeps where it read its playlists
/// without them (`WebAddress.withoutCredentials`), and they are handed to libcurl per request
/// (`CURLOPT_USERNAME`, `CURLOPT_PASSWORD`) rather than written into the URLs it resolves.
struct LinkCredentials: Equatable {
    var user: String
    var password: String?

    /// The credentials `origin` (the link as the person gave it) lends a request to `url`, or
    /// nil: when `url` names its own (libcurl reads those from it), is on another host, or
    /// would go down from https to http.
    static func lent(to url: String, by origin: String) -> LinkCredentials? {
        guard let home = try? URLParts(origin), let user = home.user,
              let target = try? URLParts(url), target.user == nil, target.password == nil,
              RedirectRule.isSameHost(url, origin), !RequestContext.isDowngrade(from: origin, to: url) else { return nil }
        // The URL holds them percent-encoded; libcurl takes them as they are meant.
        return LinkCredentials(user: user.removingPercentEncoding ?? user,
                               password: home.password.map { $0.removingPercentEncoding ?? $0 })
    }
}

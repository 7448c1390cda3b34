@testable import FetchCore
import Foundation
import Testing

/// Which cookies a request carries (RFC 6265 §5.4), and the `Cookie` line a context makes of
/// them: host-only or domain cookies, path prefixes, secure ones over https only, expired never,
/// longer paths first.
struct CookieMatchingTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    private static func cookie(_ name: String, domain: String, subdomains: Bool = false, path: String = "/",
                               secure: Bool = false, expires: Date? = nil) -> Cookie {
        // Valid by construction; a failure here is the test's own mistake.
        try! Cookie(name: name, value: "v", domain: domain, includesSubdomains: subdomains, path: path,
                    secure: secure, expires: expires)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let cookie: Cookie
        let url: String
        let sent: Bool
        let why: String
        var testDescription: String { why }
    }

    @Test(arguments: [
        Row(cookie: cookie("a", domain: "example.org"), url: "https://example.org/v.mp4", sent: true, why: "host-only, its host"),
        Row(cookie: cookie("a", domain: "example.org"), url: "https://cdn.example.org/v.mp4", sent: false,
            why: "host-only, a subdomain"),
        Row(cookie: cookie("a", domain: ".example.org", subdomains: true), url: "https://cdn.example.org/v.mp4", sent: true,
            why: "domain cookie, a subdomain"),
        Row(cookie: cookie("a", domain: "example.org", subdomains: true), url: "https://a.b.example.org/v.mp4", sent: true,
            why: "domain cookie, a deeper subdomain"),
        Row(cookie: cookie("a", domain: "example.org", subdomains: true), url: "https://example.org/v.mp4", sent: true,
            why: "domain cookie, the domain itself"),
        Row(cookie: cookie("a", domain: "example.org", subdomains: true), url: "https://badexample.org/v.mp4", sent: false,
            why: "domain cookie, a host that only ends in its letters"),
        Row(cookie: cookie("a", domain: "example.org", subdomains: true), url: "https://example.org.evil.test/v.mp4", sent: false,
            why: "domain cookie, a host that starts with it"),
        Row(cookie: cookie("a", domain: "EXAMPLE.org"), url: "https://Example.ORG/v.mp4", sent: true,
            why: "hosts compare in any case"),
        Row(cookie: cookie("a", domain: "0.0.1", subdomains: true), url: "http://127.0.0.1/v.mp4", sent: false,
            why: "never the tail of a numeric address"),
        Row(cookie: cookie("a", domain: "127.0.0.1"), url: "http://127.0.0.1:8080/v.mp4", sent: true,
            why: "a numeric address itself, any port"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos"), url: "https://example.org/videos", sent: true,
            why: "the path itself"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos"), url: "https://example.org/videos/v.mp4", sent: true,
            why: "below the path"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos/"), url: "https://example.org/videos/v.mp4", sent: true,
            why: "below a path with a slash"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos"), url: "https://example.org/videosx/v.mp4", sent: false,
            why: "a path that only starts with its letters"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos"), url: "https://example.org/v.mp4", sent: false,
            why: "above the path"),
        Row(cookie: cookie("a", domain: "example.org", path: "/videos"), url: "https://example.org/Videos/v.mp4", sent: false,
            why: "paths compare in their case"),
        Row(cookie: cookie("a", domain: "example.org", path: "/v.mp4"), url: "https://example.org/v.mp4?token=1", sent: true,
            why: "the query is no part of the path"),
        Row(cookie: cookie("a", domain: "example.org", secure: true), url: "https://example.org/v.mp4", sent: true,
            why: "secure, over https"),
        Row(cookie: cookie("a", domain: "example.org", secure: true), url: "http://example.org/v.mp4", sent: false,
            why: "secure, never over http"),
        Row(cookie: cookie("a", domain: "example.org", expires: Date(timeIntervalSince1970: 1_767_225_599)),
            url: "https://example.org/v.mp4", sent: false, why: "expired a second ago"),
        Row(cookie: cookie("a", domain: "example.org", expires: now), url: "https://example.org/v.mp4", sent: false,
            why: "expiring now"),
        Row(cookie: cookie("a", domain: "example.org", expires: Date(timeIntervalSince1970: 1_767_225_601)),
            url: "https://example.org/v.mp4", sent: true, why: "expiring in a second"),
    ])
    func matching(_ row: Row) {
        let sent = Cookie.matching([row.cookie], url: row.url, now: Self.now)
        #expect(sent.count == (row.sent ? 1 : 0))
    }

    @Test func longerPathsComeFirst() {
        let cookies = [Self.cookie("root", domain: "example.org"), Self.cookie("deep", domain: "example.org", path: "/a/b"),
                       Self.cookie("mid", domain: "example.org", path: "/a")]
        let sent = Cookie.matching(cookies, url: "https://example.org/a/b/c.mp4", now: Self.now)
        #expect(sent.map(\.name) == ["deep", "mid", "root"])
    }

    @Test func oneCookieLineHoldsTheHandGivenCookiesFirstThenTheMatchingOnes() throws {
        var context = RequestContext()
        context.cookieHeader = "hand=1; given=2"
        context.cookies = [Self.cookie("store", domain: "example.org"), Self.cookie("other", domain: "other.test")]
        let lines = context.fields(for: "https://example.org/v.mp4", origin: "https://example.org/v.mp4", now: Self.now)
        #expect(lines == ["Cookie: hand=1; given=2; store=v"])
    }

    @Test func noCookieLineWhenNoneMatches() {
        var context = RequestContext()
        context.cookies = [Self.cookie("other", domain: "other.test")]
        #expect(context.fields(for: "https://example.org/v.mp4", origin: "https://example.org/v.mp4", now: Self.now).isEmpty)
    }

    @Test func aRedirectToAnotherHostDropsTheHostBoundPartsButTheStoreFollowsItsRules() throws {
        var context = RequestContext()
        context.headers = [try HeaderField(line: "Authorization: Bearer t0ken"), try HeaderField(line: "X-Extra: 1")]
        context.cookieHeader = "hand=1"
        context.cookies = [Self.cookie("cdn", domain: "cdn.test"), Self.cookie("site", domain: "example.org")]
        context.referer = "https://example.org/page"
        let origin = "https://example.org/v.mp4"
        #expect(context.fields(for: origin, origin: origin, now: Self.now)
            == ["Authorization: Bearer t0ken", "X-Extra: 1", "Cookie: hand=1; site=v", "Referer: https://example.org/page"])
        // Another origin: the store's cookies by their rules, and the page as its origin only.
        #expect(context.fields(for: "https://cdn.test/v.mp4", origin: origin, now: Self.now)
            == ["Cookie: cdn=v", "Referer: https://example.org/"])
        #expect(context.fields(for: "https://elsewhere.test/v.mp4", origin: origin, now: Self.now) == ["Referer: https://example.org/"])
    }

    /// The Referer as browsers send it (`strict-origin-when-cross-origin`): the page without a
    /// user, password or fragment to its own origin, its origin alone to another (another
    /// host, port or scheme), nothing from https down to http nor from a page that is no web page.
    @Test(arguments: [
        ("https://u:pw@example.org/w?v=1#t=3", "https://example.org/v.mp4", "https://example.org/w?v=1"),
        ("https://u:pw@example.org/w?v=1#t=3", "https://cdn.test/v.mp4", "https://example.org/"),
        ("http://example.org:8080/w", "http://example.org/v.mp4", "http://example.org:8080/"),
        ("http://example.org/w", "https://example.org/v.mp4", "http://example.org/"),
        ("https://example.org/w", "http://example.org/v.mp4", nil),
        ("https://example.org/w", "http://cdn.test/v.mp4", nil),
        ("file:///home/u/page.html", "https://example.org/v.mp4", nil),
    ] as [(String, String, String?)])
    func theRefererIsWhatABrowserSends(_ page: String, _ url: String, _ referer: String?) {
        #expect(RequestContext.referer(page, for: url) == referer)
    }

    @Test func cookiesSurviveTheRoundTripThroughTheirFile() throws {
        let cookie = Self.cookie("a", domain: "example.org", subdomains: true, path: "/p", secure: true,
                                 expires: Date(timeIntervalSince1970: 1_900_000_000))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(try decoder.decode(Cookie.self, from: encoder.encode(cookie)) == cookie)
        // A file edited by hand is checked again when read.
        let hostile = #"{"name":"a","value":"1\r\nX-Injected: 1","domain":"example.org","includesSubdomains":false,"path":"/","secure":false}"#
        #expect(throws: (any Error).self) { try decoder.decode(Cookie.self, from: Data(hostile.utf8)) }
    }

    /// A cookie for a public suffix would go to every site under it: refused, unless it is
    /// host-only (RFC 6265 §5.3 step 5: a site that is a suffix itself, `github.io`).
    @Test(arguments: ["com", ".com", "co.uk", ".CO.UK", "github.io", "com."])
    func aPublicSuffixTakesNoCookieForItsSubdomains(_ domain: String) {
        #expect(throws: RequestContextError("A cookie has no usable domain.")) {
            try Cookie(name: "a", value: "v", domain: domain, includesSubdomains: true, path: "/", secure: false, expires: nil)
        }
    }

    @Test func aSiteUnderAPublicSuffixKeepsItsCookies() throws {
        for domain in ["example.com", "bbc.co.uk", "someone.github.io"] {
            let cookie = try Cookie(name: "a", value: "v", domain: domain, includesSubdomains: true, path: "/", secure: false, expires: nil)
            #expect(cookie.domain == domain)
        }
        let hostOnly = try Cookie(name: "a", value: "v", domain: "github.io", includesSubdomains: false, path: "/",
                                  secure: false, expires: nil)
        #expect(Cookie.matching([hostOnly], url: "https://github.io/", now: Self.now) == [hostOnly])
        #expect(Cookie.matching([hostOnly], url: "https://someone.github.io/", now: Self.now).isEmpty)
    }
}

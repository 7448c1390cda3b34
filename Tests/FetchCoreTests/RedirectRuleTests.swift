@testable import FetchCore
import Foundation
import Testing

/// The redirects the engine follows itself: which hop is still the link's host (and gets its
/// host-bound headers), which hops are refused, and the limit.
struct RedirectRuleTests {
    @Test(arguments: [
        ("http://example.org/b", "http://example.org/a", true),
        ("https://example.org/b", "https://example.org/a", true),
        ("https://EXAMPLE.org/b", "https://example.org/a", true),
        ("http://example.org:80/b", "http://example.org/a", true),
        ("https://example.org:443/b", "https://example.org/a", true),
        // A site that moves its links to https stays itself.
        ("https://example.org/b", "http://example.org/a", true),
        ("https://example.org:443/b", "http://example.org:80/a", true),
        // Another port is another host (another server may listen there).
        ("http://example.org:8080/b", "http://example.org/a", false),
        ("http://127.0.0.1:8081/b", "http://127.0.0.1:8080/a", false),
        ("https://example.org:8443/b", "http://example.org/a", false),
        ("https://example.org/b", "http://example.org:8080/a", false),
        // Down from https is no longer the same origin either.
        ("http://example.org/b", "https://example.org/a", false),
        ("http://cdn.example.org/b", "http://example.org/a", false),
        ("http://example.org/b", "http://cdn.example.org/a", false),
        ("http://localhost:8080/b", "http://127.0.0.1:8080/a", false),
        ("http://example.org.evil.test/b", "http://example.org/a", false),
        ("not a link", "http://example.org/a", false),
    ])
    func sameHost(_ url: String, _ origin: String, _ same: Bool) {
        #expect(RedirectRule.isSameHost(url, origin) == same)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectStatuses(_ status: Int) { #expect(RedirectRule.isRedirect(status: status)) }

    @Test(arguments: [200, 204, 206, 300, 304, 305, 306, 404])
    func otherStatusesAreNoRedirect(_ status: Int) { #expect(!RedirectRule.isRedirect(status: status)) }

    @Test func theNextHopIsValidated() throws {
        #expect(try RedirectRule.next(from: "http://a.test/v", to: "https://b.test/w", hops: 1, limit: 10) == "https://b.test/w")
        #expect(try RedirectRule.next(from: "http://a.test/v", to: "http://b.test/w", hops: 10, limit: 10) == "http://b.test/w")
        #expect(try RedirectRule.next(from: "https://a.test/v", to: "https://b.test/w", hops: 1, limit: 10) == "https://b.test/w")
    }

    @Test func downFromHTTPSIsRefused() {
        #expect(throws: DownloadError.unsupportedScheme("http")) {
            try RedirectRule.next(from: "https://a.test/v", to: "http://a.test/v", hops: 1, limit: 10)
        }
        #expect(throws: DownloadError.unsupportedScheme("http")) {
            try RedirectRule.next(from: "HTTPS://a.test/v", to: "http://b.test/v", hops: 1, limit: 10)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://a.test/v", "javascript:alert(1)", "gopher://a.test/"])
    func otherSchemesAreRefused(_ target: String) {
        #expect(throws: DownloadError.self) { try RedirectRule.next(from: "http://a.test/v", to: target, hops: 1, limit: 10) }
    }

    @Test func theHopLimit() {
        #expect(throws: DownloadError.tooManyRedirects) {
            try RedirectRule.next(from: "http://a.test/v", to: "http://a.test/w", hops: 11, limit: 10)
        }
        #expect(throws: DownloadError.tooManyRedirects) {
            try RedirectRule.next(from: "http://a.test/v", to: "http://a.test/w", hops: 1, limit: 0)
        }
    }

    @Test func aRedirectThatNamesNowhere() {
        #expect(throws: DownloadError.badResponse("it redirected without saying where")) {
            try RedirectRule.next(from: "http://a.test/v", to: nil, hops: 1, limit: 10)
        }
    }
}

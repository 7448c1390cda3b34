@testable import FetchCore
import Foundation
import Testing

/// `--proxy URL` checked before anything starts, and the proxy's name as messages may show it
/// (never its password).
struct ProxySettingTests {
    @Test(arguments: [
        "http://127.0.0.1:3128", "https://proxy.example:8443", "socks5://127.0.0.1:1080", "socks5h://proxy.example:1080",
        "socks4://127.0.0.1:1080", "socks4a://127.0.0.1:1080", "HTTP://Proxy.Example:3128", "http://user:pa%40ss@proxy.example:3128",
        "socks5://alice:s3cret@127.0.0.1:1080", "  http://127.0.0.1:3128  ",
    ])
    func accepted(_ text: String) throws {
        #expect(try ProxySetting.manual(checking: text) == .manual(text.trimmingCharacters(in: .whitespaces)))
    }

    static let notAURL = "A proxy is given as a URL: http://HOST:PORT, https://…, socks5://… or socks5h://…."
    static let noHost = "The proxy’s address is not a URL with a host name."

    @Test(arguments: [
        ("127.0.0.1:3128", notAURL),
        ("proxy.example", notAURL),
        ("", notAURL),
        ("ftp://proxy.example:21", "Fetchplay cannot use a ftp proxy; give an http, https or socks5 proxy."),
        ("file:///etc/passwd", "Fetchplay cannot use a file proxy; give an http, https or socks5 proxy."),
        ("gopher://proxy.example", "Fetchplay cannot use a gopher proxy; give an http, https or socks5 proxy."),
        ("http://", noHost),
        ("socks5://", noHost),
        ("http://proxy.example:3128/\r\nX: 1", noHost),
    ])
    func refused(_ text: String, _ sentence: String) {
        #expect(throws: RequestContextError(sentence)) { try ProxySetting.manual(checking: text) }
    }

    @Test(arguments: [
        ("http://user:secret@proxy.example:3128", "proxy.example:3128"),
        ("socks5://alice:s3cret@127.0.0.1:1080", "127.0.0.1:1080"),
        ("socks5h://proxy.example:1080", "proxy.example:1080"),
        ("https://proxy.example", "proxy.example"),
    ])
    func itsNameHasNoPassword(_ text: String, _ name: String) throws {
        let setting = try ProxySetting.manual(checking: text)
        #expect(setting.displayName(for: "http://example.org/v.mp4") == name)
    }

    @Test func aPasswordIsASecret() throws {
        #expect(try ProxySetting.manual(checking: "socks5://alice:s3cret@127.0.0.1:1080").hasPassword)
        #expect(try ProxySetting.manual(checking: "http://user:secret@proxy.example:3128").hasPassword)
        #expect(try !ProxySetting.manual(checking: "http://proxy.example:3128").hasPassword)
        var context = RequestContext()
        context.proxy = try .manual(checking: "socks5://alice:s3cret@127.0.0.1:1080")
        #expect(context.carriesSecrets)
    }

    @Test func theEnvironmentsProxyIsNamedByTheLinksScheme() {
        let environment = ["http_proxy": "http://u:p@plain.example:3128", "HTTPS_PROXY": "secure.example:8443",
                           "HTTP_PROXY": "ignored.example:1"]
        #expect(ProxySetting.environment.displayName(for: "http://a.test/v", environment: environment) == "plain.example:3128")
        #expect(ProxySetting.environment.displayName(for: "https://a.test/v", environment: environment) == "secure.example:8443")
        // libcurl reads http_proxy in lower case only.
        #expect(ProxySetting.environment.displayName(for: "http://a.test/v", environment: ["HTTP_PROXY": "x.example:1"]) == nil)
        #expect(ProxySetting.environment.displayName(for: "http://a.test/v", environment: ["ALL_PROXY": "all.example:1"]) == "all.example:1")
        #expect(ProxySetting.direct.displayName(for: "http://a.test/v", environment: environment) == nil)
    }

    @Test(arguments: [ProxySetting.environment, .direct, .desktop, .manual("socks5://alice:s3cret@127.0.0.1:1080")])
    func roundTrip(_ setting: ProxySetting) throws {
        #expect(try JSONDecoder().decode(ProxySetting.self, from: JSONEncoder().encode(setting)) == setting)
    }

    @Test func aKeptProxyIsCheckedAgain() {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ProxySetting.self, from: Data(#""ftp://x.example""#.utf8)) }
    }
}

import FetchCore
import Testing

struct WebAddressTests {
    @Test(arguments: [
        ("not a url", DownloadError.invalidURL("not a url")),
        ("", DownloadError.invalidURL("")),
        ("file:///etc/passwd", DownloadError.unsupportedScheme("file")),
        ("ftp://127.0.0.1/video.webm", DownloadError.unsupportedScheme("ftp")),
        ("magnet://abc", DownloadError.unsupportedScheme("magnet")),
        ("http://", DownloadError.invalidURL("http://")),
    ])
    func refused(_ text: String, _ expected: DownloadError) {
        #expect(throws: expected) { try WebAddress.validate(text) }
        #expect(!expected.message.isEmpty)
    }

    @Test func acceptsHTTPAndHTTPSAndTrims() throws {
        #expect(try WebAddress.validate("  https://example.org/a.webm\n") == "https://example.org/a.webm")
        #expect(try WebAddress.validate("http://127.0.0.1:8080/v") == "http://127.0.0.1:8080/v")
    }

    @Test func messagesNameWhatToDo() {
        #expect(DownloadError.httpStatus(code: 404, reason: "Not Found").message.contains("404 Not Found"))
        #expect(DownloadError.unsupportedScheme("ftp").message.contains("ftp"))
        #expect(DownloadError.diskFull.message.contains("Continue"))
    }
}

/// One video, one entry: the spellings of a link that name the same resource (RFC 3986 §6).
struct LinkNormalizationTests {
    @Test(arguments: [
        ("HTTP://Example.ORG/v.webm", "http://example.org/v.webm"),
        ("http://example.org:80/v.webm", "http://example.org/v.webm"),
        ("https://example.org:443/v.webm", "https://example.org/v.webm"),
        ("https://example.org:8443/v.webm", "https://example.org:8443/v.webm"),
        ("http://example.org/vid%c3%a9o.webm", "http://example.org/vid%C3%A9o.webm"),
        ("http://example.org/vidéo.webm", "http://example.org/vid%C3%A9o.webm"),
        ("http://example.org/%7Euser/a%2Db.webm", "http://example.org/~user/a-b.webm"),
        ("http://example.org/a/./b/../c.webm", "http://example.org/a/c.webm"),
        ("http://example.org", "http://example.org/"),
        ("http://example.org/v.webm#t=10", "http://example.org/v.webm"),
        ("http://example.org/v.webm?a=1&b=%2f", "http://example.org/v.webm?a=1&b=%2F"),
        ("http://example.org/a%2Fb.webm", "http://example.org/a%2Fb.webm"),
    ])
    func spellingsOfOneLinkAreOne(_ text: String, _ normal: String) throws {
        #expect(try WebAddress.validate(text) == normal)
    }

    @Test(arguments: [
        ("example.org/v.webm", "https://example.org/v.webm"),
        ("www.example.org", "https://www.example.org/"),
        ("127.0.0.1:8080/v.webm", "http://127.0.0.1:8080/v.webm"),
        ("localhost/v.webm", "http://localhost/v.webm"),
    ])
    func linkWithoutASchemeIsCompletedAsABrowserDoes(_ text: String, _ completed: String) throws {
        #expect(try WebAddress.validate(text) == completed)
    }

    @Test func identityDropsThePasswordAndKeepsTheUser() throws {
        let link = "http://User:s%65cret@Example.org/v.webm"
        #expect(try WebAddress.validate(link) == "http://User:secret@example.org/v.webm")
        #expect(try WebAddress.identity(link) == "http://User@example.org/v.webm")
        #expect(WebAddress.redacted(link) == "http://User@example.org/v.webm")
        #expect(WebAddress.redacted("no link at all") == "no link at all")
    }
}

import Foundation
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
        // Hosts no DNS name can be, which libcurl read differently a second time (the fuzzer's).
        ("https:/%7f#.", DownloadError.invalidURL("https:/%7f#.")),
        ("http://a..org/v.mp4", DownloadError.invalidURL("http://a..org/v.mp4")),
        ("http://ex\"ample.org/v.mp4", DownloadError.invalidURL("http://ex\"ample.org/v.mp4")),
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
        // Dot segments that were percent-encoded go too, so that the normal form is normal once.
        ("http://example.org/a/.%2e/b.webm", "http://example.org/b.webm"),
        ("http://example.org/a/%2E/b.webm", "http://example.org/a/b.webm"),
        ("http://example.org/%2e%2E/%2e%2e/b.webm", "http://example.org/b.webm"),
        ("http://example.org/a/%2e%2e", "http://example.org/"),
        ("http://example.org/a/b/%2e", "http://example.org/a/b/"),
        ("http://example.org/a/.%2e.webm", "http://example.org/a/...webm"),
        ("http://[::1]:8080/v.webm", "http://[::1]:8080/v.webm"),
        ("http://Example.ORG./v.webm", "http://example.org./v.webm"),
        ("http://bücher.example/v.webm", "http://bücher.example/v.webm"),
        // libcurl decodes a host after reading IPv4 numbers: `%34` is `4`, which is `0.0.0.4`.
        ("https:/%34", "https://0.0.0.4/"),
        ("https://%34/v.webm", "https://0.0.0.4/v.webm"),
        ("http://1.2.3/v.webm", "http://1.2.0.3/v.webm"),
    ])
    func spellingsOfOneLinkAreOne(_ text: String, _ normal: String) throws {
        #expect(try WebAddress.validate(text) == normal)
        #expect(try WebAddress.validate(normal) == normal, "the normal form is a fixed point")
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

/// What a person types that is no link: paths and file names are files on this computer; a name
/// whose ending is no public suffix is no host; with one, it means https as in an address bar.
struct TypedTextTests {
    @Test(arguments: [
        ("/etc/passwd", "/etc/passwd", true),
        ("/no/such/folder/v.mp4", "/no/such/folder/v.mp4", false),
        ("/etc", "/etc", false),  // a folder: nothing to open
    ])
    func absolutePathIsALocalFile(_ text: String, _ path: String, _ isFile: Bool) {
        #expect(throws: DownloadError.localFile(LocalPath(typed: text, path: path, isFile: isFile))) {
            try WebAddress.validate(text)
        }
    }

    @Test(arguments: ["./v.mp4", "../v.mp4", "clips/v.mp4", "clips.old/v.mp4", "~/Videos/v.mp4", "~"])
    func relativeAndHomePathsAreLocalFiles(_ text: String) throws {
        do {
            _ = try WebAddress.validate(text)
            Issue.record("\(text) was taken as a link")
        } catch {
            guard case .localFile(let local) = error else { return #expect(Bool(false), "\(error)") }
            #expect(local.typed == text)
            #expect(local.path.hasPrefix("/"), "absolute: \(local.path)")
            #expect(!local.path.contains("~"))
            #expect(error.message.contains("on this computer, not a link"))
        }
    }

    @Test func homePathIsExpanded() throws {
        let local = try #require(LocalPath("~/Videos/v.mp4"))
        #expect(local.path == NSHomeDirectory() + "/Videos/v.mp4")
    }

    @Test(arguments: ["video.mp4", "clip.webm", "clips", "com", "a..b", ".example.com", "example.com."])
    func bareNameWithoutAPublicSuffixIsNotALink(_ text: String) {
        #expect(throws: DownloadError.invalidURL(text)) { try WebAddress.validate(text) }
    }

    @Test(arguments: [
        ("example.com/v.mp4", "https://example.com/v.mp4"),
        ("www.example.com/v.mp4", "https://www.example.com/v.mp4"),
        ("cdn.example.co.uk/a/v.mp4?x=1", "https://cdn.example.co.uk/a/v.mp4?x=1"),
        ("Example.COM", "https://example.com/"),
        ("example.com:8443/v.mp4", "https://example.com:8443/v.mp4"),
        ("localhost:8080/v.mp4", "http://localhost:8080/v.mp4"),
        ("192.168.1.20/v.mp4", "http://192.168.1.20/v.mp4"),
    ])
    func nameWithAPublicSuffixMeansHTTPS(_ text: String, _ link: String) throws {
        #expect(try WebAddress.validate(text) == link)
    }

    @Test func fileMessageSaysHowToOpenIt() {
        let message = DownloadError.localFile(LocalPath(typed: "~/my clip.mp4", path: "/home/me/my clip.mp4", isFile: true)).message
        #expect(message.contains("“~/my clip.mp4” is a file on this computer"))
        #expect(message.hasSuffix("fetchplay '/home/me/my clip.mp4'"))
    }
}


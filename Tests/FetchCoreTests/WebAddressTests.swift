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

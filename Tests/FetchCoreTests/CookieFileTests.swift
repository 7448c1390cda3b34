@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The Netscape cookies.txt reader, on files as curl, wget, yt-dlp and browser exporters write
/// them, and on the broken and hostile ones a person may give.
struct CookieFileTests {
    /// A fixed "now" for the expiry rules: 2026-01-01.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let future = "1900000000"
    static let past = "1600000000"

    private func parse(_ text: String) throws(RequestContextError) -> [Cookie] {
        try CookieFile.parse(Data(text.utf8), name: "cookies.txt", now: Self.now)
    }

    @Test func readsEverySevenFields() throws {
        let cookies = try parse("""
            # Netscape HTTP Cookie File
            # https://curl.se/docs/http-cookies.html

            .example.org\tTRUE\t/videos\tTRUE\t\(Self.future)\tsession\tabc123
            host.example.org\tFALSE\t/\tFALSE\t0\tlang\ten

            """)
        #expect(cookies.count == 2)
        let session = try #require(cookies.first)
        #expect(session.name == "session" && session.value == "abc123")
        #expect(session.domain == "example.org", "the leading dot goes; the flag says subdomains match")
        #expect(session.includesSubdomains && session.secure)
        #expect(session.path == "/videos")
        #expect(session.expires == Date(timeIntervalSince1970: 1_900_000_000))
        let lang = cookies[1]
        #expect(lang.domain == "host.example.org" && !lang.includesSubdomains && !lang.secure)
        #expect(lang.expires == nil, "0 is a session cookie")
    }

    @Test func httpOnlyLinesAreCookiesOtherCommentsAreNot() throws {
        let cookies = try parse("""
            #HttpOnly_.example.org\tTRUE\t/\tFALSE\t\(Self.future)\tsid\tsecret
            # .example.org\tTRUE\t/\tFALSE\t\(Self.future)\tcommented\tout
            #.example.org\tTRUE\t/\tFALSE\t\(Self.future)\talso\tout
            """)
        #expect(cookies.map(\.name) == ["sid"])
        #expect(cookies.first?.domain == "example.org")
    }

    @Test func expiredCookiesAreLeftOut() throws {
        let cookies = try parse("""
            example.org\tFALSE\t/\tFALSE\t\(Self.past)\told\t1
            example.org\tFALSE\t/\tFALSE\t\(Self.future)\tnew\t2
            example.org\tFALSE\t/\tFALSE\t\(Int(Self.now.timeIntervalSince1970))\tnow\t3
            """)
        #expect(cookies.map(\.name) == ["new"], "expired (and expiring this second) cookies are never kept")
    }

    @Test func windowsLineEndingsReadLikeUnixOnes() throws {
        let text = "# Netscape HTTP Cookie File\r\n"
            + "example.org\tFALSE\t/\tFALSE\t\(Self.future)\ta\t1\r\n"
            + "#HttpOnly_example.org\tFALSE\t/\tTRUE\t0\tb\t2\r\n"
        let cookies = try parse(text)
        #expect(cookies.map(\.pair) == ["a=1", "b=2"], "no CR is left in a value")
    }

    @Test func sixFieldsMeanAnEmptyValue() throws {
        let cookies = try parse("example.org\tFALSE\t/\tFALSE\t0\tflag\n")
        #expect(cookies.count == 1)
        #expect(cookies.first?.name == "flag" && cookies.first?.value == "")
    }

    @Test func flagsAreReadInAnyCase() throws {
        let cookies = try parse("example.org\ttrue\t/\tTrue\t0\ta\t1\n")
        #expect(cookies.first?.includesSubdomains == true && cookies.first?.secure == true)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let line: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        Malformed(name: "spaces instead of tabs", text: "example.org FALSE / FALSE 0 a 1\n", line: 1),
        Malformed(name: "five fields", text: "# c\nexample.org\tFALSE\t/\tFALSE\t0\n", line: 2),
        Malformed(name: "eight fields", text: "example.org\tFALSE\t/\tFALSE\t0\ta\t1\textra\n", line: 1),
        Malformed(name: "a flag that is no boolean", text: "\n\nexample.org\tYES\t/\tFALSE\t0\ta\t1\n", line: 3),
        Malformed(name: "a secure flag that is no boolean", text: "example.org\tFALSE\t/\t1\t0\ta\t1\n", line: 1),
        Malformed(name: "an expiry that is no number", text: "example.org\tFALSE\t/\tFALSE\tsoon\ta\t1\n", line: 1),
        Malformed(name: "a negative expiry", text: "example.org\tFALSE\t/\tFALSE\t-5\ta\t1\n", line: 1),
        Malformed(name: "a broken line after good ones",
                  text: "example.org\tFALSE\t/\tFALSE\t0\ta\t1\nexample.org\tFALSE\t/\tFALSE\t0\tb\t2\ngarbage\n", line: 3),
    ])
    func malformedLinesAreNamedByNumber(_ row: Malformed) {
        #expect {
            try parse(row.text)
        } throws: { error in
            let message = (error as? RequestContextError)?.message ?? ""
            return message == "Line \(row.line) of the cookie file cookies.txt is not a Netscape cookie line (seven fields separated by tabs)."
        }
    }

    struct Unusable: Sendable, CustomTestStringConvertible {
        let name: String
        let line: String
        var testDescription: String { name }
    }

    /// A Netscape line whose cookie no request may carry costs that cookie only: the good lines
    /// around it are kept, as a browser's message keeps the rest of its cookies.
    @Test(arguments: [
        Unusable(name: "no domain", line: "\tFALSE\t/\tFALSE\t0\tbad\t1"),
        Unusable(name: "no name", line: "example.org\tFALSE\t/\tFALSE\t0\t\t1"),
        Unusable(name: "a semicolon in a value", line: "example.org\tFALSE\t/\tFALSE\t0\tbad\t1; b=2"),
        Unusable(name: "a control character in a value", line: "example.org\tFALSE\t/\tFALSE\t0\tbad\t1\u{7}"),
        Unusable(name: "a name that is no token", line: "example.org\tFALSE\t/\tFALSE\t0\tb d\t1"),
        Unusable(name: "a public suffix", line: ".co.uk\tTRUE\t/\tFALSE\t0\tbad\t1"),
        Unusable(name: "a public suffix of a hosting site", line: "#HttpOnly_.github.io\tTRUE\t/\tFALSE\t0\tbad\t1"),
    ])
    func anUnusableCookieIsSkippedAndTheGoodLinesKept(_ row: Unusable) throws {
        let cookies = try parse("example.org\tFALSE\t/\tFALSE\t0\tgood\t1\n\(row.line)\nshop.example.co.uk\tTRUE\t/\tFALSE\t0\talso\t2\n")
        #expect(cookies.map(\.name) == ["good", "also"])
    }

    @Test func oversizedFileIsRefusedWithoutReadingItWhole() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-cookies")
        let line = Array("example.org\tFALSE\t/\tFALSE\t0\ta\t1\n".utf8)
        let path = folder.file("huge.txt")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let block = Data(Array(repeating: line, count: (1 << 20) / line.count + 1).joined())
        for _ in 0..<17 { handle.write(block) }
        try handle.close()
        #expect(throws: RequestContextError("The cookie file \(path) is larger than 16 MB; export only the site’s cookies.")) {
            try CookieFile.read(path, now: Self.now)
        }
        // An endless file is refused too, after at most the limit.
        #expect(throws: RequestContextError("The cookie file /dev/zero is larger than 16 MB; export only the site’s cookies.")) {
            try CookieFile.read("/dev/zero", now: Self.now)
        }
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: RequestContextError("The cookie file cookies.txt is not text; give a Netscape cookies.txt file.")) {
            try CookieFile.parse(Data([0x65, 0x09, 0xFF, 0xFE, 0x0A]), name: "cookies.txt", now: Self.now)
        }
    }

    @Test func missingFileIsNamed() {
        let path = "/nonexistent/fetchplay/cookies.txt"
        #expect(throws: RequestContextError("The cookie file \(path) cannot be read; check its path and that it is yours.")) {
            try CookieFile.read(path, now: Self.now)
        }
    }

    @Test func aFileOfTheSameCookiesReadsFromDisk() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-cookies")
        let path = try folder.write(Array("#HttpOnly_.example.org\tTRUE\t/\tTRUE\t0\tsid\tv\n".utf8), to: "c.txt")
        #expect(try CookieFile.read(path, now: Self.now).map(\.pair) == ["sid=v"])
    }
}

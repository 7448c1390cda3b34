@testable import FetchCore
import Foundation
import Testing

/// `--header 'Name: value'` as a person types it, and what may never reach a request.
struct HeaderFieldTests {
    @Test(arguments: [
        ("X-Token: abc", "X-Token", "abc"),
        ("X-Token:abc", "X-Token", "abc"),
        ("  X-Token :   a b c  ", "X-Token", "a b c"),
        ("Authorization: Bearer a:b:c", "Authorization", "Bearer a:b:c"),
        ("X-Empty:", "X-Empty", ""),
        ("X-Tab: a\tb", "X-Tab", "a\tb"),
        ("X-UTF8: vidéo", "X-UTF8", "vidéo"),
        ("!#$%&'*+-.^_`|~09azAZ: v", "!#$%&'*+-.^_`|~09azAZ", "v"),
    ])
    func accepted(_ line: String, _ name: String, _ value: String) throws {
        let field = try HeaderField(line: line)
        #expect(field.name == name && field.value == value)
        #expect(field.line == "\(name): \(value)")
    }

    static let noColon = "A --header needs the form “Name: value”, with a colon after the name."
    static let badName = "A header’s name may hold only letters, digits and - _ . ! # $ % & ' * + ^ ` | ~."
    static let badValue = "A header’s value may not hold line breaks or other control characters, nor more than 16 KiB."

    @Test(arguments: [
        ("X-Token abc", noColon),
        ("", noColon),
        (": value", badName),
        ("X Token: abc", badName),
        ("X-Tökén: abc", badName),
        ("X(Token): abc", badName),
        ("X-Token\r\nX-Injected: 1", badName),
        ("X-Token: a\r\nX-Injected: 1", badValue),
        ("X-Token: a\nX-Injected: 1", badValue),
        ("X-Token: a\rb", badValue),
        ("X-Token: a\u{0}b", badValue),
        ("X-Token: a\u{7F}b", badValue),
        ("X-Token: a\u{1B}[31m", badValue),
        ("X-Token: " + String(repeating: "a", count: 16 << 10 + 1), badValue),
        (String(repeating: "X", count: 257) + ": v", badName),
    ])
    func refused(_ line: String, _ sentence: String) {
        #expect(throws: RequestContextError(sentence)) { try HeaderField(line: line) }
    }

    @Test(arguments: ["Range", "range", "If-Range", "Accept-Encoding", "Host", "Content-Length", "Transfer-Encoding",
                      "Connection", "TE", "Trailer", "Upgrade", "Expect", "Proxy-Connection"])
    func theEngineOwnsItsHeaders(_ name: String) {
        #expect(throws: RequestContextError("Fetchplay sets the \(name) header itself; leave it out.")) {
            try HeaderField(line: "\(name): bytes=0-")
        }
    }

    @Test func aValueOfExactly16KiBPasses() throws {
        let value = String(repeating: "a", count: 16 << 10)
        #expect(try HeaderField(name: "X-Big", value: value).value.utf8.count == 16 << 10)
    }

    @Test func aContextFileEditedByHandIsCheckedAgain() {
        let hostile = #"{"name":"X-Token","value":"a\r\nRange: bytes=0-1"}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(HeaderField.self, from: Data(hostile.utf8)) }
        let reserved = #"{"name":"Range","value":"bytes=0-1"}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(HeaderField.self, from: Data(reserved.utf8)) }
    }
}

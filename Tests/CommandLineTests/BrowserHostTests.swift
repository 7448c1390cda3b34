import Foundation
import Glibc
import Testing
import TestSupport

/// The browser extension's native messaging host, as the browser starts it: the real `fetchplay`
/// under the name `fetchplay-browser-host` (or with `--browser-host`), framed JSON on its
/// standard input and output. Hostile input gets an error answer or a clean exit, never a crash
/// or a download; a good download message reaches the one Fetchplay window over the session bus.
struct BrowserHostTests {
    let folder: TemporaryDirectory
    /// `fetchplay-browser-host`, a link to the built `fetchplay`, as installed in libexec.
    let hostProgram: String

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-host")
        hostProgram = folder.file("fetchplay-browser-host")
        try FileManager.default.createSymbolicLink(atPath: hostProgram, withDestinationPath: FetchplayProcess.executable)
    }

    /// Runs the host as Chromium does (origin first), gives it `input` and closes its input.
    private func run(_ input: [UInt8], arguments: [String] = [NativeHostProcess.chromiumOrigin], name: String = "host",
                     environment: [String: String] = [:]) throws -> NativeHostProcess {
        let host = try NativeHostProcess(program: hostProgram, arguments: arguments, folder: folder, name: name, environment: environment)
        host.send(input)
        host.closeInput()
        #expect(host.waitForExit(), "the host did not end after its input closed")
        return host
    }

    private func version() throws -> String {
        let run = try FetchplayProcess.run(["--version"], folder: folder, name: "version")
        return String(run.standardOutput.dropFirst("fetchplay ".count)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: The protocol

    @Test func pingAnswersWithTheVersionUnderTheHostsName() throws {
        let host = try run(NativeHostProcess.frame(#"{"type":"ping"}"#))
        #expect(host.status == 0, "stderr: \(host.standardError)")
        let answers = try #require(host.answers)
        #expect(answers.count == 1)
        #expect(answers.first?["ok"] as? Bool == true)
        #expect(answers.first?["version"] as? String == (try version()))
    }

    @Test func pingAnswersWithTheOptionToo() throws {
        let host = try NativeHostProcess(program: FetchplayProcess.executable, arguments: ["--browser-host", NativeHostProcess.chromiumOrigin],
                            folder: folder, name: "option")
        host.send(NativeHostProcess.frame(#"{"type":"ping"}"#) + NativeHostProcess.frame(#"{"type":"ping"}"#))
        host.closeInput()
        #expect(host.waitForExit())
        #expect(host.status == 0)
        let answers = try #require(host.answers)
        #expect(answers.count == 2 && answers.allSatisfy { $0["ok"] as? Bool == true }, "one answer a message")
    }

    @Test func firefoxCallsWithTheManifestPathAndTheExtensionsID() throws {
        let host = try run(NativeHostProcess.frame(#"{"type":"ping"}"#),
                           arguments: ["/usr/lib/mozilla/native-messaging-hosts/io.github.fetchplay.fetchplay.json", NativeHostProcess.firefoxID])
        #expect(host.status == 0)
        #expect(host.answers?.first?["ok"] as? Bool == true)
    }

    @Test(arguments: [
        [String](),
        ["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"],
        ["chrome-extension://peobkohdifbjbdcfmfmpemobecfkeiif"],
        ["/home/me/.mozilla/native-messaging-hosts/x.json", "evil@example.org"],
        ["https://example.org/"],
    ])
    func anyOtherCallerIsRefused(_ arguments: [String]) throws {
        let host = try run(NativeHostProcess.frame(#"{"type":"ping"}"#), arguments: arguments)
        #expect(host.status == 1)
        #expect(!host.crashed)
        let answers = try #require(host.answers)
        #expect(answers.count == 1 && NativeHostProcess.isError(answers[0]), "\(answers)")
        #expect(answers.first?["error"] as? String == "Only Fetchplay’s own browser extension may use this host.")
    }

    @Test func itEndsWithZeroWhenItsInputCloses() throws {
        let host = try run([])
        #expect(host.status == 0)
        #expect(host.answers?.isEmpty == true, "nothing to answer")
    }

    // MARK: Hostile input

    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        /// What the browser's side writes, given a link to the test's server.
        let input: @Sendable (String) -> [UInt8]
        /// The host's status: 0 when it answers and goes on reading, 1 when the stream broke.
        let status: Int32
        let words: String
        var testDescription: String { name }
    }

    static func length(_ value: UInt32) -> [UInt8] { NativeHostProcess.length(value) }

    @Test(arguments: [
        Hostile(name: "a length over 1 MiB", input: { _ in length(2 << 20) + Array("{}".utf8) }, status: 1, words: "larger than 1 MiB"),
        Hostile(name: "the largest length", input: { _ in [0xFF, 0xFF, 0xFF, 0xFF] }, status: 1, words: "larger than 1 MiB"),
        Hostile(name: "a length cut short", input: { _ in [0x10, 0x00] }, status: 1, words: "inside its length"),
        Hostile(name: "a body shorter than its length", input: { _ in length(100) + Array(#"{"type""#.utf8) },
                status: 1, words: "before its length said"),
        Hostile(name: "an empty message", input: { _ in NativeHostProcess.frame([]) }, status: 0, words: "not a JSON object"),
        Hostile(name: "invalid JSON", input: { url in NativeHostProcess.frame(#"{"type":"download","url":"\#(url)""#) }, status: 0,
                words: "not a JSON object"),
        Hostile(name: "bytes that are not UTF-8", input: { _ in NativeHostProcess.frame([0x7B, 0xFF, 0xFE, 0x7D]) }, status: 0, words: "not a JSON object"),
        Hostile(name: "an array", input: { url in NativeHostProcess.frame(#"[{"type":"download","url":"\#(url)"}]"#) }, status: 0,
                words: "not a JSON object"),
        Hostile(name: "a number", input: { _ in NativeHostProcess.frame("42") }, status: 0, words: "not a JSON object"),
        Hostile(name: "an unknown type", input: { url in NativeHostProcess.frame(#"{"type":"fetch","url":"\#(url)","command":"touch /tmp/pwned"}"#) },
                status: 0, words: "asks for nothing"),
        Hostile(name: "a file link", input: { _ in NativeHostProcess.frame(#"{"type":"download","url":"file:///etc/passwd"}"#) }, status: 0,
                words: "only http and https"),
        Hostile(name: "a javascript link", input: { _ in NativeHostProcess.frame(#"{"type":"download","url":"javascript:alert(document.cookie)"}"#) },
                status: 0, words: "only http and https"),
        // (A cookie with a control character is left out, the rest kept: BrowserMessageTests.)
        Hostile(name: "a private flag that is a string", input: { url in
                    NativeHostProcess.frame(#"{"type":"download","url":"\#(url)","private":"yes"}"#)
                }, status: 0, words: "neither true nor false"),
        Hostile(name: "a control character in the user agent",
                input: { url in NativeHostProcess.frame(#"{"type":"download","url":"\#(url)","userAgent":"UA\u0000"}"#) }, status: 0,
                words: "control characters"),
        Hostile(name: "more than 300 cookies", input: { url in
                    NativeHostProcess.frame(["type": "download", "url": url,
                           "cookies": Array(repeating: ["name": "a", "value": "b", "domain": "127.0.0.1"], count: 301)])
                }, status: 0, words: "more than 300 cookies"),
    ])
    func hostileInputGetsAnErrorAnswerNeverACrashNorADownload(_ row: Hostile) throws {
        let server = try FaultServer()
        server.serve("/v.webm", body: TestData.bytes(count: 1000, seed: 1), etag: "\"v\"")
        // A bus of its own: a download handed on by mistake would start a window there, not on
        // the developer's session.
        let bus = try PrivateBus()
        let host = try run(row.input(server.url("/v.webm")), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(!host.crashed, "the host crashed: \(host.standardError)")
        #expect(host.status == row.status, "stderr: \(host.standardError)")
        let answers = try #require(host.answers, "answers are framed JSON")
        #expect(answers.count == 1 && NativeHostProcess.isError(answers[0]), "\(answers)")
        let sentence = (answers.first?["error"] as? String) ?? ""
        #expect(sentence.contains(row.words), "\(sentence)")
        #expect(sentence.hasSuffix("."), "one sentence")
        #expect(server.requests.isEmpty, "nothing was downloaded")
    }

    @Test func aBodyThatStopsComingGetsAnAnswerAndAnExit() throws {
        // The length says 100 bytes, ten come, and the input stays open as a stuck browser's would.
        let host = try NativeHostProcess(program: hostProgram, arguments: [NativeHostProcess.chromiumOrigin], folder: folder, name: "stuck")
        defer { host.closeInput() }
        host.send(NativeHostProcess.length(100) + Array(#"{"type":"p"#.utf8))
        #expect(host.waitForExit(), "the host waits for ever on a body that never comes")
        #expect(host.status == 1 && !host.crashed)
        #expect(host.answers?.first?["error"] as? String == "The browser’s message ended before its length said.")
    }

    @Test func aBadMessageDoesNotEndTheConversation() throws {
        let host = try run(NativeHostProcess.frame("not json") + NativeHostProcess.frame(#"{"type":"eval"}"#) + NativeHostProcess.frame(#"{"type":"ping"}"#))
        #expect(host.status == 0)
        let answers = try #require(host.answers)
        #expect(answers.count == 3)
        #expect(answers.prefix(2).allSatisfy(NativeHostProcess.isError))
        #expect(answers.last?["ok"] as? Bool == true && answers.last?["version"] != nil)
    }

    @Test func aDownloadWithNoSessionBusIsAClearErrorAndNothingStarts() throws {
        let server = try FaultServer()
        server.serve("/v.webm", body: TestData.bytes(count: 1000, seed: 1), etag: "\"v\"")
        let host = try run(NativeHostProcess.frame(["type": "download", "url": server.url("/v.webm")]),
                           environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + folder.file("no-bus")])
        #expect(host.status == 0 && !host.crashed)
        let answer = try #require(host.answers?.first)
        #expect(NativeHostProcess.isError(answer))
        #expect((answer["error"] as? String)?.contains("session’s bus") == true, "\(answer)")
        #expect(server.requests.isEmpty)
    }
}

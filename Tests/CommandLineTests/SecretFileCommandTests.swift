import Foundation
import Glibc
import Testing
import TestSupport

/// Secrets out of the command line: `--cookie @FILE`, `--header @FILE`, `--proxy-file FILE` and
/// `FETCHPLAY_PROXY`. While a real `fetchplay --download` runs (its answer held by the server),
/// its `/proc/PID/cmdline`, which every local user can read, holds none of them, and the server
/// still got them. A secret file others can read is refused, like a malformed or missing one:
/// one sentence, exit 1, nothing requested.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: LocalProxy.microsocks),
                "needs microsocks (scripts/install-deps)"))
struct SecretFileCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    static let body = TestData.bytes(count: 300_000, seed: 151)
    static let path = "/secret.webm"
    static let proxyVariable = "FETCHPLAY_PROXY"
    /// `nobody`: another user of the computer, for what it may read (as root, with setpriv).
    static let otherUser = "65534"
    static let canBeAnotherUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-secret-files")
        server.serve(Self.path, body: Self.body, etag: "\"s\"")
    }

    /// Writes `text` to `name`, readable by its owner only (or with `mode`); returns its path.
    private func secretFile(_ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = try folder.write(Array(text.utf8), to: name)
        #expect(chmod(path, mode) == 0)
        return path
    }

    private static func procFile(_ pid: pid_t, _ name: String) -> String {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(name)") ?? Data()
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    /// Starts `fetchplay --download` with `arguments` while the server holds the answer's body,
    /// reads its command line while it runs, then lets it finish; returns the run and what its
    /// command line was.
    private func runHeld(_ arguments: [String], environment: [String: String] = [:],
                         whileRunning check: (pid_t) throws -> Void = { _ in }) throws -> (FetchplayProcess, String) {
        server.hold(Self.path, offsets: 1000..<Self.body.count)
        let run = try FetchplayProcess(["--download", server.url(Self.path), "--cache-dir", fixture.cacheDir] + arguments,
                                       folder: folder, environment: environment)
        defer {
            if run.process.isRunning { run.send(SIGKILL) }
        }
        #expect(waitUntil(timeout: .seconds(20)) { server.bytesSent(of: Self.path) > 0 || !run.process.isRunning },
                "never reached the server: \(run.standardError)")
        #expect(run.process.isRunning, "it ended before its answer: \(run.standardError)")
        let pid = run.process.processIdentifier
        let commandLine = Self.procFile(pid, "cmdline")
        #expect(commandLine.contains("--download"), "read the running process's own command line: \(commandLine)")
        try check(pid)
        server.release(Self.path)
        #expect(run.waitForExit(timeout: .seconds(60)))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        return (run, commandLine)
    }

    @Test func cookiesHeadersAndAProxyPasswordFromFilesAreNeverInTheCommandLine() throws {
        let proxy = try LocalProxy.socks5(user: "alice", password: "pw-S3CRET-9")
        let cookie = try secretFile("cookie", "sid=ck-S3CRET-1; lang=en\n")
        let headers = try secretFile("headers", """
            # sent to the link's host only
            X-Token: hdr-S3CRET-2

            Authorization: Bearer auth-S3CRET-3\r
            """)
        let proxyFile = try secretFile("proxy", proxy.url + "\n")
        #expect(chmod(folder.path, 0o711) == 0, "others may pass through the folder, not list it")
        let (run, commandLine) = try runHeld(["--cookie", "@" + cookie, "--header", "@" + headers,
                                              "--header", "X-Plain: visible", "--proxy-file", proxyFile]) { pid in
            // Another user sees the command line but not the environment, nor the files.
            guard Self.canBeAnotherUser else { return }
            let seen = try Command.run("/usr/bin/setpriv", ["--reuid=" + Self.otherUser, "--regid=" + Self.otherUser,
                                                             "--clear-groups", "/bin/cat", "/proc/\(pid)/cmdline"])
            #expect(seen.status == 0 && seen.output.contains("--proxy-file") && !seen.output.contains("S3CRET"), "\(seen.output)")
            for file in ["/proc/\(pid)/environ", cookie, headers, proxyFile] {
                let denied = try Command.run("/usr/bin/setpriv", ["--reuid=" + Self.otherUser, "--regid=" + Self.otherUser,
                                                                   "--clear-groups", "/bin/cat", file])
                #expect(denied.status != 0 && denied.output.isEmpty, "another user read \(file)")
            }
        }
        #expect(!commandLine.contains("S3CRET") && commandLine.contains("@" + cookie), "\(commandLine)")
        let requests = server.requests(to: Self.path)
        #expect(!requests.isEmpty)
        for request in requests {
            #expect(request["cookie"] == "sid=ck-S3CRET-1; lang=en" && request["x-token"] == "hdr-S3CRET-2"
                    && request["authorization"] == "Bearer auth-S3CRET-3" && request["x-plain"] == "visible",
                    "\(request.headers)")
        }
        #expect(!run.standardError.contains("S3CRET") && !run.standardOutput.contains("S3CRET"))
    }

    @Test func fetchplayProxyIsUsedAndNeverInTheCommandLine() throws {
        let proxy = try LocalProxy.socks5(user: "alice", password: "pw-S3CRET-9")
        let (_, commandLine) = try runHeld([], environment: [Self.proxyVariable: proxy.url])
        #expect(!commandLine.contains("S3CRET"), "\(commandLine)")
        #expect(server.requests(to: Self.path).count == 1)
        // The same environment with a wrong password: the proxy turns it away, so it was used.
        server.serve("/w.webm", body: Self.body, etag: "\"w\"")
        let refused = try FetchplayProcess.run(["--download", server.url("/w.webm"), "--cache-dir", fixture.cacheDir],
                                               folder: folder, name: "refused",
                                               environment: [Self.proxyVariable: "socks5://alice:wrong@127.0.0.1:\(proxy.port)"])
        #expect(refused.status == 4, "stderr: \(refused.standardError)")
        #expect(server.requests(to: "/w.webm").isEmpty)
        // An option goes before the environment.
        let direct = try FetchplayProcess.run(["--download", server.url("/w.webm"), "--cache-dir", fixture.cacheDir,
                                               "--proxy-file", try secretFile("proxy", proxy.url)],
                                              folder: folder, name: "direct",
                                              environment: [Self.proxyVariable: "socks5://alice:wrong@127.0.0.1:\(proxy.port)"])
        #expect(direct.status == 0, "stderr: \(direct.standardError)")
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let option: String
        let content: String?
        let mode: mode_t
        let sentence: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        Refused(name: "a missing cookie file", option: "--cookie", content: nil, mode: 0o600,
                sentence: "The file FILE cannot be read."),
        Refused(name: "a cookie file others can read", option: "--cookie", content: "a=b", mode: 0o644,
                sentence: "Other users of this computer can read or change FILE; run chmod 600 FILE first."),
        Refused(name: "a header file others can change", option: "--header", content: "X-A: b", mode: 0o620,
                sentence: "Other users of this computer can read or change FILE; run chmod 600 FILE first."),
        Refused(name: "a proxy file others can read", option: "--proxy-file", content: "socks5://127.0.0.1:1", mode: 0o604,
                sentence: "Other users of this computer can read or change FILE; run chmod 600 FILE first."),
        Refused(name: "a cookie file over 64 KiB", option: "--cookie", content: "a=" + String(repeating: "b", count: 65 << 10),
                mode: 0o600, sentence: "The file FILE is not text of at most 64 KiB."),
        Refused(name: "a cookie file that is no cookie", option: "--cookie", content: "just text", mode: 0o600,
                sentence: "--cookie takes cookies as \"A=B; C=D\": a name, =, a value, separated by semicolons."),
        Refused(name: "an empty cookie file", option: "--cookie", content: "\n", mode: 0o600,
                sentence: "--cookie takes cookies as \"A=B; C=D\": a name, =, a value, separated by semicolons."),
        Refused(name: "a proxy file that is no proxy", option: "--proxy-file", content: "127.0.0.1:1080", mode: 0o600,
                sentence: "A proxy is given as a URL: http://HOST:PORT, https://…, socks5://… or socks5h://…."),
    ])
    func anUnusableSecretFileIsOneSentenceAndNothingIsRequested(_ row: Refused) throws {
        let file = row.content == nil ? folder.file("absent") : try secretFile("secret", row.content!, mode: row.mode)
        let value = row.option == "--proxy-file" ? file : "@" + file
        let run = try fixture.download(server.url(Self.path), [row.option, value])
        #expect(run.status == 1)
        #expect(run.standardError == "fetchplay: " + row.sentence.replacingOccurrences(of: "FILE", with: file) + "\n",
                "\(run.standardError)")
        #expect(server.requests(to: Self.path).isEmpty && run.standardOutput.isEmpty)
    }

    @Test func aMalformedLineInAHeaderFileIsRefusedWithNothingRequested() throws {
        let file = try secretFile("headers", "X-Good: 1\nno colon here\n")
        let run = try fixture.download(server.url(Self.path), ["--header", "@" + file])
        #expect(run.status == 1 && run.standardError.hasPrefix("fetchplay: ") && run.standardError.split(separator: "\n").count == 1,
                "\(run.standardError)")
        #expect(server.requests(to: Self.path).isEmpty)
    }

    @Test func theHelpSaysArgumentsAreVisibleAndShowsTheFileForms() throws {
        let help = try FetchplayProcess.run(["--help"], folder: folder, name: "help")
        #expect(help.status == 0)
        for text in ["--proxy-file", "@FILE", "FETCHPLAY_PROXY", "chmod 600", "Every user of this computer can see"] {
            #expect(help.standardOutput.contains(text), "no \(text) in --help: \(help.standardOutput)")
        }
    }
}


import Foundation
import Glibc
import Testing
import TestSupport

/// A download message through the native host to the Fetchplay window, on a private session bus
/// with the window under Xvfb: the host starts the window when none runs, or hands the link to
/// the one that runs; the window downloads it with the page's cookie, Referer and User-Agent and
/// finishes it in the videos folder under the name the browser gave.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                                 && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
                                 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"),
                             "needs a display, dbus-daemon and gdbus"))
struct BrowserHandOffTests {
    static let appID = "io.github.fetchplay.Fetchplay"
    static let body = TestData.bytes(count: 300_000, seed: 131)

    let server: FaultServer
    let folder: TemporaryDirectory
    let bus: PrivateBus
    let hostProgram: String
    var cache: String { folder.file("cache") }

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-handoff")
        bus = try PrivateBus()
        hostProgram = folder.file("fetchplay-browser-host")
        try FileManager.default.createSymbolicLink(atPath: hostProgram, withDestinationPath: FetchplayProcess.executable)
        try FileManager.default.createDirectory(atPath: folder.file("config"), withIntermediateDirectories: true)
        server.serve("/media/clip.webm", body: Self.body, etag: "\"b\"", headers: [HTTPHeader("Content-Type", "video/webm")])
    }

    /// What the window needs: the display, the private bus, a fresh configuration (so the videos
    /// folder is `CACHE/videos`) and the cache.
    private var windowEnvironment: [String: String] {
        ["DISPLAY": ProcessInfo.processInfo.environment["DISPLAY"] ?? "", "DBUS_SESSION_BUS_ADDRESS": bus.address,
         "XDG_CONFIG_HOME": folder.file("config"), "FETCHPLAY_CACHE_DIR": cache,
         "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none"]
    }

    private func gdbus(_ arguments: [String]) -> String {
        (try? bus.gdbus(["call", "--session"] + arguments, timeout: .seconds(10)) { usleep(1000) })?.output ?? ""
    }

    /// The process that owns Fetchplay's name on the bus, if one does.
    private func owner() -> pid_t? {
        let reply = gdbus(["--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                           "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", Self.appID])
        // "(uint32 1234,)"
        guard let number = reply.split(whereSeparator: { !$0.isNumber }).last.flatMap({ pid_t($0) }),
              reply.contains("uint32") else { return nil }
        return number
    }

    /// Quits the window through its own action and waits for it to go (killing it, by its
    /// process id, if it stays).
    private func quit(_ pid: pid_t) {
        _ = gdbus(["--dest", Self.appID, "--object-path", "/io/github/fetchplay/Fetchplay",
                   "--method", "org.gtk.Actions.Activate", "quit", "[]", "{}"])
        let gone = waitUntil(timeout: .seconds(15)) { kill(pid, 0) != 0 && owner() == nil }
        #expect(gone, "the window did not quit")
        if !gone { kill(pid, SIGKILL) }
    }

    private var message: [String: Any] {
        ["type": "download", "url": server.url("/media/clip.webm"), "referrer": server.url("/watch?v=7"),
         "userAgent": "Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1", "fileName": "A Clip From The Page.webm",
         "cookies": [["name": "session", "value": "ck-S3CRET", "domain": "127.0.0.1", "path": "/", "secure": false,
                      "httpOnly": true, "hostOnly": true, "session": true, "sameSite": "lax", "storeId": "0"],
                     ["name": "elsewhere", "value": "no", "domain": "example.org", "path": "/", "secure": false,
                      "httpOnly": false, "hostOnly": true, "session": true]]]
    }

    /// Hands `message` (with `extra` fields) to the host as the browser would; returns its answers.
    private func handOff(_ extra: [String: Any] = [:], environment: [String: String] = [:]) throws -> [[String: Any]] {
        let host = try NativeHostProcess(program: hostProgram, arguments: [NativeHostProcess.chromiumOrigin], folder: folder,
                                         name: "host", environment: windowEnvironment.merging(environment) { $1 })
        host.send(NativeHostProcess.frame(message.merging(extra) { $1 }))
        host.closeInput()
        #expect(host.waitForExit(timeout: .seconds(40)), "the host did not end")
        #expect(host.status == 0 && !host.crashed, "stderr: \(host.standardError)")
        return host.answers ?? []
    }

    /// The video finished under the browser's name, with the page's context on every request.
    private func expectDownloaded() throws {
        let video = cache + "/videos/A Clip From The Page.webm"
        #expect(waitUntil(timeout: .seconds(30), interval: .milliseconds(50)) { FileManager.default.fileExists(atPath: video) },
                "no video under the browser's name: \((try? FileManager.default.contentsOfDirectory(atPath: cache + "/videos")) ?? [])")
        #expect(try sha256Hex(ofFile: video) == sha256Hex(of: Self.body))
        let requests = server.requests(to: "/media/clip.webm")
        #expect(!requests.isEmpty)
        for request in requests {
            #expect(request["cookie"] == "session=ck-S3CRET", "the page's cookie for this host only")
            #expect(request["referer"] == server.url("/watch?v=7"))
            #expect(request["user-agent"] == "Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1")
        }
    }

    @Test func withNoWindowTheHostStartsOneWhichDownloadsTheLink() throws {
        #expect(owner() == nil)
        // The browser's environment names a command-line proxy with a password: the window
        // never needs it, and never gets it.
        let answers = try handOff(environment: ["FETCHPLAY_PROXY": "http://fp:px-S3CRET@127.0.0.1:1/"])
        #expect(answers.count == 1 && answers.first?["ok"] as? Bool == true, "\(answers)")
        let pid = try #require(owner(), "no window owns Fetchplay's name")
        defer { quit(pid) }
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(program.hasSuffix("/fetchplay-window"), "\(program)")
        // The page's cookie reached the window over the bus only: never in its arguments (which
        // every local user can read) nor in its environment.
        for file in ["cmdline", "environ"] {
            let text = String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/\(file)") ?? Data(), as: UTF8.self)
            #expect(!text.isEmpty && !text.contains("ck-S3CRET") && !text.contains("px-S3CRET"), "the window's \(file) holds a secret")
        }
        try expectDownloaded()
    }

    /// "This page" in the popup (or the page's own menu item) hands over the page itself, as
    /// its own referrer and with no name: the window asks for it with the browser's cookie and
    /// User-Agent, so the page it reads for videos is the one the person saw.
    @Test func aPageHandedOverIsAskedForWithThePagesContext() throws {
        server.serve("/watch", body: Array("<!DOCTYPE html><title>A page</title><p>No video here.</p>".utf8),
                     headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
        let page = server.url("/watch?v=7")
        let answers = try handOff(["url": page, "referrer": page, "fileName": NSNull()])
        #expect(answers.count == 1 && answers.first?["ok"] as? Bool == true, "\(answers)")
        let pid = try #require(owner(), "no window owns Fetchplay's name")
        defer { quit(pid) }
        #expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(50)) { !server.requests(to: "/watch").isEmpty },
                "the window never asked for the page")
        let request = try #require(server.requests(to: "/watch").first)
        #expect(request.target == "/watch?v=7")
        #expect(request["cookie"] == "session=ck-S3CRET", "the page's cookie for this host only")
        #expect(request["referer"] == page)
        #expect(request["user-agent"] == "Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1")
    }

    /// The context files in the cache (none for a private download, ever).
    private func contextFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/partial")) ?? []).filter { $0.hasSuffix(".context") }
    }

    @Test func aDownloadFromAPrivateWindowLeavesNoContextOnDisk() throws {
        server.hold("/media/clip.webm", offsets: 1000..<Self.body.count)
        let answers = try handOff(["private": true])
        #expect(answers.count == 1 && answers.first?["ok"] as? Bool == true, "\(answers)")
        let pid = try #require(owner(), "no window owns Fetchplay's name")
        defer { quit(pid) }
        #expect(waitUntil(timeout: .seconds(20)) { server.bytesSent(of: "/media/clip.webm") > 0 }, "the window never asked")
        #expect(contextFiles().isEmpty, "a private download's context was written: \(contextFiles())")
        server.release("/media/clip.webm")
        try expectDownloaded()
        #expect(contextFiles().isEmpty)
    }

    @Test func withAWindowRunningTheMessageGoesToIt() throws {
        let window = try FetchplayProcess([], folder: folder, name: "window", environment: windowEnvironment)
        defer { quit(window.process.processIdentifier) }
        #expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(50)) { owner() != nil || !window.process.isRunning },
                "the window never owned its name: \(window.standardError)")
        let pid = try #require(owner())
        let answers = try handOff()
        #expect(answers.count == 1 && answers.first?["ok"] as? Bool == true, "\(answers)")
        try expectDownloaded()
        #expect(owner() == pid, "one process: the window that ran took the link")
        #expect(window.process.isRunning)
        #expect(!window.standardError.contains("ck-S3CRET"), "no secret printed: \(window.standardError)")
    }
}

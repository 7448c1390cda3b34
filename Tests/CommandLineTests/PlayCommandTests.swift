import Foundation
import Testing
import TestSupport

/// `fetchplay --play URL` on a private session bus: the window opens, downloads the link and plays
/// it before the download is complete; a second `--play` hands its link to the running window
/// and exits. What plays is read from MPRIS, as GNOME's media controls read it.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"),
                "needs a display, dbus-run-session and gdbus"))
struct PlayCommandTests {
    @Test func playStartsBeforeTheEndAndASecondPlayGoesToTheRunningWindow() throws {
        let first = try Array(Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 10, width: 640, height: 360,
                                                                                        audio: false))))
        // Long enough to be still playing when the script looks (a short one may have ended).
        let second = try Array(Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 10, audio: false))))
        let server = try FaultServer()
        // The first arrives at about its bitrate: ten seconds in all.
        server.serve("/first.webm", body: first, etag: "\"1\"", faults: [.throttle(bytesPerSecond: first.count / 10)],
                     faultyRequests: nil)
        server.serve("/second.webm", body: second, etag: "\"2\"")
        let folder = try TemporaryDirectory(prefix: "fetchplay-play")
        let script = """
            "$BIN" --cache-dir "$OUT/cache" --play "$FIRST" >"$OUT/app.log" 2>&1 & app=$!
            \(SessionBusScript.mprisFunctions)
            {
                echo "playing=$(wait_for PlaybackStatus "'Playing'")"
                [ -e "$OUT/cache/videos/first.webm" ] && echo "first-done-when-playing=yes" || echo "first-done-when-playing=no"
                echo "title=$(wait_for Metadata "<'first.webm'>")"
                "$BIN" --cache-dir "$OUT/cache" --play "$SECOND" >"$OUT/second.log" 2>&1
                echo "second-exit=$?"
                echo "second-title=$(wait_for Metadata "<'second.webm'>")"
                echo "second-playing=$(wait_for PlaybackStatus "'Playing'")"
                "$BIN" --play "not a link" >"$OUT/bad.log" 2>&1
                echo "bad-exit=$?"
            } >"$OUT/report" 2>&1
            \(SessionBusScript.quitThroughMPRIS)
            """
        let (status, report) = try SessionBusScript.run(script, out: folder, variables: [
            "FIRST": server.url("/first.webm"), "SECOND": server.url("/second.webm"),
        ])
        let log = (try? String(contentsOfFile: folder.file("app.log"), encoding: .utf8)) ?? ""
        #expect(status == 0)
        let lines = SessionBusScript.fields(report)
        #expect(lines["playing"] == "yes", "\(report)\n\(log)")
        #expect(lines["first-done-when-playing"] == "no", "it played only once downloaded: \(report)")
        #expect(lines["title"] == "yes", "\(report)")
        #expect(lines["second-exit"] == "0", "the second --play should hand over and exit: \(report)")
        #expect(lines["second-title"] == "yes" && lines["second-playing"] == "yes", "\(report)\n\(log)")
        #expect(lines["bad-exit"] == "2", "\(report)")
        let bad = (try? String(contentsOfFile: folder.file("bad.log"), encoding: .utf8)) ?? ""
        #expect(bad.hasPrefix("fetchplay: ") && bad.split(separator: "\n").count == 1, "one sentence: \(bad)")
        #expect(lines["exit"] == "0", "\(report)\n\(log)")
        #expect(server.requests(to: "/second.webm").count >= 1)
    }
}

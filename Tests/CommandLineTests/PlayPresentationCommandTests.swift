import Foundation
import Testing
import TestSupport

/// `fetchplay --play URL` for HLS and DASH: the window plays the presentation while its
/// segments are still on their way. The server holds back every segment after each stream's
/// first for the whole test, so a picture that plays came from the first segments alone; what
/// plays is read from MPRIS, as GNOME's media controls read it.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"),
                "needs a display, dbus-run-session and gdbus"))
struct PlayPresentationCommandTests {
    @Test func aDASHLinkKnownByItsAnswerAndAnHLSLinkPlayWithOnlyTheirFirstSegments() throws {
        let dash = try Clips.dash(), hls = try Clips.fragmentedHLS()
        let server = try FaultServer()
        dash.serve(on: server)
        for (path, body) in hls.files where path.hasPrefix("alt/") { server.serve("/" + path, body: body, etag: "\"\(path.count)\"") }
        // A manifest at a link without an extension: a DASH presentation only by its answer.
        server.serve("/tl/lecture", body: dash.files["tl/index.mpd"]!, etag: "\"lecture\"",
                     headers: [HTTPHeader("Content-Type", "application/dash+xml")])
        let media = dash.files.filter { $0.key.hasPrefix("tl/") && HeldSegments.isMedia($0.key) }
            .merging(hls.files.filter { $0.key.hasPrefix("alt/") && HeldSegments.isMedia($0.key) }) { $1 }
        let held = HeldSegments.heldBack(media)
        for (path, range) in held { server.hold("/" + path, offsets: range) }

        let folder = try TemporaryDirectory(prefix: "fetchplay-play-presentation")
        let script = """
            "$BIN" --cache-dir "$OUT/cache" --play "$DASH" >"$OUT/app.log" 2>&1 & app=$!
            \(SessionBusScript.mprisFunctions)
            {
                echo "dash-title=$(wait_for Metadata "<'lecture'>")"
                echo "dash-playing=$(wait_for PlaybackStatus "'Playing'")"
                "$BIN" --cache-dir "$OUT/cache" --play "$HLS" >"$OUT/second.log" 2>&1
                echo "hls-exit=$?"
                echo "hls-title=$(wait_for Metadata "<'master'>")"
                echo "hls-playing=$(wait_for PlaybackStatus "'Playing'")"
            } >"$OUT/report" 2>&1
            \(SessionBusScript.quitThroughMPRIS)
            """
        let (status, report) = try SessionBusScript.run(script, out: folder, variables: [
            "DASH": server.url("/tl/lecture"), "HLS": server.url("/alt/master.m3u8"),
        ])
        let log = (try? String(contentsOfFile: folder.file("app.log"), encoding: .utf8)) ?? ""
        #expect(status == 0)
        let lines = SessionBusScript.fields(report)
        #expect(lines["dash-title"] == "yes" && lines["dash-playing"] == "yes", "\(report)\n\(log)")
        #expect(lines["hls-exit"] == "0", "the second --play should hand over and exit: \(report)")
        #expect(lines["hls-title"] == "yes" && lines["hls-playing"] == "yes", "\(report)\n\(log)")
        #expect(lines["exit"] == "0", "\(report)\n\(log)")
        // Held to the end: nothing past each stream's first segment was sent.
        for (path, range) in held {
            #expect(server.bytesSent(of: "/" + path) <= media[path]!.count - range.count, "\(path)")
        }
        #expect(!held.isEmpty)
    }
}

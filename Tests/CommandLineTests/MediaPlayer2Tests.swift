import Foundation
import Testing
import TestSupport

/// MPRIS: `fetchplay FILE` on a private session bus, driven with `gdbus call` the way GNOME's
/// media controls and media keys do (PlayPause, Seek, the status, the title). Needs a display
/// (the test command runs under Xvfb), `dbus-run-session` and `gdbus`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"),
                "needs a display, dbus-run-session and gdbus"))
struct MediaPlayer2Tests {
    @Test func mediaControlsPlayPauseSeekAndShowTheTitle() throws {
        let clip = try Clips.webm(seconds: 10, audio: false)
        let folder = try TemporaryDirectory(prefix: "fetchplay-mpris")
        // Each step waits (with a deadline) for what the bus reports, and writes one line.
        let script = """
            "$BIN" --cache-dir "$OUT/cache" "$CLIP" >"$OUT/app.log" 2>&1 & app=$!
            \(SessionBusScript.mprisFunctions)
            get() { mpris --method org.freedesktop.DBus.Properties.Get "$1" "$2" 2>/dev/null; }
            position() { player Position | sed -n 's/.*int64 \\([0-9]*\\).*/\\1/p'; }
            wait_status() {
                for _ in $(seq 400); do
                    case $(player PlaybackStatus) in *"'$1'"*) echo "$1"; return;; esac
                    sleep 0.05
                done
                echo "timeout, last: $(player PlaybackStatus)"
            }
            {
                echo "playing=$(wait_status Playing)"
                echo "identity=$(get org.mpris.MediaPlayer2 Identity)"
                echo "metadata=$(player Metadata)"
                mpris --method org.mpris.MediaPlayer2.Player.PlayPause >/dev/null
                echo "paused=$(wait_status Paused)"
                before=$(position)
                mpris --method org.mpris.MediaPlayer2.Player.Seek 3000000 >/dev/null
                target=$((before + 3000000))
                for _ in $(seq 200); do
                    now=$(position)
                    [ -n "$now" ] && [ "$now" -ge $((target - 200000)) ] && [ "$now" -le $((target + 200000)) ] && break
                    sleep 0.05
                done
                echo "seek=$before $now"
                mpris --method org.mpris.MediaPlayer2.Player.PlayPause >/dev/null
                echo "again=$(wait_status Playing)"
            } >"$OUT/report" 2>&1
            \(SessionBusScript.quitThroughMPRIS)
            """
        let (status, report) = try SessionBusScript.run(script, out: folder, variables: ["CLIP": clip])
        #expect(status == 0)
        let lines = SessionBusScript.fields(report)

        #expect(lines["playing"] == "Playing", "\(report)")
        #expect(lines["identity"] == "(<'Fetchplay'>,)", "\(report)")
        let metadata = lines["metadata"] ?? ""
        #expect(metadata.contains("'xesam:title': <'\(URL(fileURLWithPath: clip).lastPathComponent)'>"), "\(metadata)")
        #expect(metadata.contains("'mpris:length': <int64 10000000>"), "10 s in microseconds: \(metadata)")
        #expect(lines["paused"] == "Paused", "\(report)")
        let seek = (lines["seek"] ?? "").split(separator: " ").compactMap { Int64($0) }
        #expect(seek.count == 2 && abs(seek[1] - seek[0] - 3_000_000) <= 200_000, "seek from, to: \(seek) \(report)")
        #expect(lines["again"] == "Playing", "\(report)")
        #expect(lines["exit"] == "0", "Quit ends the process cleanly: \(report)")
    }
}

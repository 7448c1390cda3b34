import Foundation
import Testing
import TestSupport

/// `fetchplay URL` while a window runs hands the URL to that window over the session bus, the
/// GApplication way, instead of opening a second one. Needs a display (the test command runs
/// under Xvfb) and `dbus-run-session` for a private bus.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"),
                "needs a display, dbus-run-session and gdbus"))
struct SingleInstanceTests {
    @Test func secondLaunchHandsTheURLToTheRunningWindow() throws {
        let server = try FaultServer()
        let body = TestData.bytes(count: 200_000, seed: 21)
        server.serve("/handed.webm", body: body, etag: "\"h\"")
        let folder = try TemporaryDirectory(prefix: "fetchplay-single")
        let cache = folder.file("cache")
        // The first instance owns the application id on a private bus; the second one, started
        // once that is so, forwards its URL and exits; then the first one downloads it.
        let script = """
            "$BIN" --cache-dir "$CACHE" >"$OUT/first.log" 2>&1 & first=$!
            owned=false
            for _ in $(seq 200); do
                if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                    --method org.freedesktop.DBus.NameHasOwner io.github.fetchplay.Fetchplay 2>/dev/null | grep -q true; then
                    owned=true; break
                fi
                sleep 0.05
            done
            "$BIN" "$URL" >"$OUT/second.log" 2>&1; second=$?
            for _ in $(seq 400); do
                ls "$CACHE"/videos/*.json >/dev/null 2>&1 && break
                sleep 0.05
            done
            # Quit through the application's own action, as a desktop shell would.
            gdbus call --session --dest io.github.fetchplay.Fetchplay --object-path /io/github/fetchplay/Fetchplay \
                --method org.gtk.Actions.Activate quit "[]" "{}" >/dev/null 2>&1 || kill -KILL $first
            wait $first
            echo "owned=$owned second=$second" >"$OUT/report"
            """
        let (_, report) = try SessionBusScript.run(script, out: folder, variables: [
            "CACHE": cache, "URL": server.url("/handed.webm"),
        ])

        #expect(report.contains("owned=true second=0"), "\(report)")
        #expect(server.requests(to: "/handed.webm").count == 1, "one window downloaded it, once")
        let videos = (try? FileManager.default.contentsOfDirectory(atPath: cache + "/videos")) ?? []
        let video = try #require(videos.first { $0.hasSuffix(".webm") })
        #expect(try sha256Hex(ofFile: cache + "/videos/" + video) == sha256Hex(of: body))
    }
}

import Foundation
import Testing
import TestSupport

/// The real app, started with LANGUAGE=zh_CN, shows its window in Chinese: a refused download
/// puts a translated error in the window and a size in the library. The screenshot lands in
/// `artifacts/ui/zh_CN-window.png` for a person to check that no text is clipped or overlaps.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DISPLAY"] != nil
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/import"),
                "needs a display, dbus-run-session, gdbus and imagemagick"))
struct TranslatedWindowTests {
    /// `artifacts/ui/` at the package root.
    static let artifacts: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("artifacts/ui").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    @Test func theWindowInChinese() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-zh")
        let shot = Self.artifacts + "/zh_CN-window.png"
        try? FileManager.default.removeItem(atPath: shot)
        // Nothing listens on port 1: the download fails at once with "refused". The screen is
        // grabbed until two grabs in a row are the same (the window has settled), then the app
        // quits through its own action. Without a window manager the window sits at 0,0 on
        // black, so trimming the black leaves the window.
        let script = """
            "$BIN" --cache-dir "$CACHE" http://127.0.0.1:1/clip.webm >"$OUT/app.log" 2>&1 & app=$!
            previous=""; settled=false
            for _ in $(seq 150); do
                /usr/bin/import -window root "$OUT/root.png" 2>/dev/null || true
                now=$(/usr/bin/convert "$OUT/root.png" -trim +repage rgba:- 2>/dev/null | sha256sum)
                if [ "$(/usr/bin/convert "$OUT/root.png" -format '%k' info: 2>/dev/null)" -gt 16 ] && [ "$now" = "$previous" ]; then
                    settled=true; break
                fi
                previous=$now
                sleep 0.2
            done
            /usr/bin/convert "$OUT/root.png" -trim +repage "$SHOT"
            gdbus call --session --dest io.github.fetchplay.Fetchplay --object-path /io/github/fetchplay/Fetchplay \\
                --method org.gtk.Actions.Activate quit "[]" "{}" >/dev/null 2>&1 || kill -KILL $app
            wait $app; status=$?
            echo "settled=$settled status=$status" >"$OUT/report"
            """
        var base = FetchplayProcess.headlessEnvironment
        base["DISPLAY"] = ProcessInfo.processInfo.environment["DISPLAY"]
        let (_, report) = try SessionBusScript.run(script, out: folder, variables: [
            "LANGUAGE": "zh_CN", "CACHE": folder.file("cache"), "SHOT": shot, "GDK_BACKEND": "x11",
        ], base: base)
        let log = (try? String(contentsOfFile: folder.file("app.log"), encoding: .utf8)) ?? ""

        #expect(report.contains("settled=true status=0"), "\(report)\n\(log)")
        let size = try Command.run("/usr/bin/convert", [shot, "-format", "%w %h", "info:"])
        let dimensions = size.output.split(separator: " ").compactMap { Int($0) }
        #expect(dimensions.count == 2 && dimensions[0] >= 500 && dimensions[1] >= 400,
                "the screenshot should be the whole window: \(size.output)")
    }

    /// Preferences in Chinese, opened through the app's own action on the bus (app.preferences,
    /// what Ctrl+comma runs); found by its translated title and grabbed alone once it has settled:
    /// `artifacts/ui/zh_CN-preferences.png`.
    @Test func thePreferencesInChinese() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-zh-prefs")
        let shot = Self.artifacts + "/zh_CN-preferences.png"
        try? FileManager.default.removeItem(atPath: shot)
        let script = """
            "$BIN" --cache-dir "$CACHE" >"$OUT/app.log" 2>&1 & app=$!
            app_call() {
                gdbus call --session --dest io.github.fetchplay.Fetchplay --object-path /io/github/fetchplay/Fetchplay \\
                    --method org.gtk.Actions.Activate "$1" "[]" "{}" >/dev/null 2>&1
            }
            opened=false
            for _ in $(seq 100); do app_call preferences && { opened=true; break; }; sleep 0.1; done
            window=""
            for _ in $(seq 100); do
                window=$(xdotool search --name '^首选项$' 2>/dev/null | head -n1)
                [ -n "$window" ] && break
                sleep 0.1
            done
            previous=""; settled=false
            for _ in $(seq 150); do
                [ -n "$window" ] || break
                /usr/bin/import -window "$window" "$OUT/prefs.png" 2>/dev/null || true
                now=$(sha256sum <"$OUT/prefs.png")
                if [ "$(/usr/bin/convert "$OUT/prefs.png" -format '%k' info: 2>/dev/null)" -gt 16 ] && [ "$now" = "$previous" ]; then
                    settled=true; break
                fi
                previous=$now
                sleep 0.2
            done
            cp "$OUT/prefs.png" "$SHOT" 2>/dev/null
            app_call quit || kill -KILL $app
            wait $app; status=$?
            echo "opened=$opened found=${window:+yes} settled=$settled status=$status" >"$OUT/report"
            """
        var base = FetchplayProcess.headlessEnvironment
        base["DISPLAY"] = ProcessInfo.processInfo.environment["DISPLAY"]
        let (_, report) = try SessionBusScript.run(script, out: folder, variables: [
            "LANGUAGE": "zh_CN", "CACHE": folder.file("cache"), "SHOT": shot, "GDK_BACKEND": "x11",
            "XDG_CONFIG_HOME": folder.file("config"),
        ], base: base)
        let log = (try? String(contentsOfFile: folder.file("app.log"), encoding: .utf8)) ?? ""
        #expect(report.contains("opened=true found=yes settled=true status=0"), "\(report)\n\(log)")
        let size = try Command.run("/usr/bin/convert", [shot, "-format", "%w %h", "info:"])
        let dimensions = size.output.split(separator: " ").compactMap { Int($0) }
        #expect(dimensions.count == 2 && dimensions[0] >= 400 && dimensions[1] >= 300,
                "the screenshot should be the Preferences window: \(size.output)")
    }
}

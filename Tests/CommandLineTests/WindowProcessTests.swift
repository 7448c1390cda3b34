import Foundation
import Testing
import TestSupport

/// `fetchplay` as a person starts it: its own process with a window under openbox, closed with
/// Ctrl+W pressed through XTest. What it prints on stderr and what it leaves on disk are checked.
@Suite(.serialized)
struct WindowProcessTests {
    /// What GTK and GLib print when a layout or a widget goes wrong. The session-bus warning is
    /// harmless where no D-Bus session runs.
    static func problems(in standardError: String) -> [String] {
        standardError.split(separator: "\n").map(String.init).filter { line in
            (line.contains("-WARNING") || line.contains("-CRITICAL") || line.contains("overlapping"))
                && !line.contains("Unable to acquire session bus")
        }
    }

    /// Starts the window with `config` as its configuration folder; returns it and its X window.
    func launch(_ arguments: [String], folder: TemporaryDirectory, name: String,
                config: String, cache: String) throws -> (FetchplayProcess, UInt) {
        let display = try #require(ProcessInfo.processInfo.environment["DISPLAY"], "the window tests need a display")
        let app = try FetchplayProcess(arguments, folder: folder, name: name, environment: [
            "DISPLAY": display, "XDG_CONFIG_HOME": config, "FETCHPLAY_CACHE_DIR": cache,
            "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1",
        ])
        var window: UInt?
        let shown = waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) {
            let found = try? Command.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--pid",
                                                              "\(app.process.processIdentifier)"])
            window = found?.output.split(separator: "\n").first.flatMap { UInt($0) }
            return window != nil || !app.process.isRunning
        }
        try #require(shown && window != nil, "no window appeared: \(app.standardError)")
        return (app, window!)
    }

    /// Presses Ctrl+W once the window has the focus; waits for the process to end.
    func close(_ app: FetchplayProcess, window: UInt) throws {
        let focused = waitUntil(timeout: .seconds(10), interval: .milliseconds(50)) {
            (try? Desktop.xdotool(["getwindowfocus"]))?.trimmingCharacters(in: .whitespacesAndNewlines) == "\(window)"
        }
        #expect(focused, "the new window did not get the focus")
        try Desktop.xdotool(["key", "ctrl+w"])
        #expect(app.waitForExit(timeout: .seconds(15)), "Ctrl+W did not end fetchplay")
        if app.process.isRunning { app.send(SIGKILL); app.process.waitUntilExit() }
        #expect(app.status == 0, "exit status \(app.status): \(app.standardError)")
    }

    /// Under the cairo renderer the window never loads a GL driver (GDK would make a context
    /// only to look at it: about 50 MB resident of Mesa's for nothing).
    @Test func underCairoNoGLDriverIsLoaded() throws {
        try Desktop.ensureWindowManager()
        let folder = try TemporaryDirectory(prefix: "fetchplay-nogl")
        let config = folder.file("config"), cache = folder.file("cache")
        let (app, window) = try launch([], folder: folder, name: "nogl", config: config, cache: cache)
        // Read to its end: /proc's files have no size for Foundation's whole-file readers.
        let data = FileHandle(forReadingAtPath: "/proc/\(app.process.processIdentifier)/maps")?.readDataToEndOfFile() ?? Data()
        let maps = String(decoding: data, as: UTF8.self)
        #expect(maps.contains("libgtk-4"), "the window's maps were not read")
        let drivers = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ").last, path.hasSuffix("_dri.so") || path.contains("libGLX_mesa")
                || path.contains("libEGL_mesa") else { return nil }
            return String(path)
        })
        #expect(drivers.isEmpty, "GL loaded under cairo: \(drivers.sorted())")
        try close(app, window: window)
    }

    @Test func theWindowRemembersItsSizeAndPrintsNoGtkWarnings() throws {
        try Desktop.ensureWindowManager()
        let folder = try TemporaryDirectory(prefix: "fetchplay-window")
        let config = folder.file("config"), cache = folder.file("cache")
        try FileManager.default.createDirectory(atPath: config + "/fetchplay", withIntermediateDirectories: true)
        // A phone-sized window, as a previous run left it.
        try Data(#"{"width":360,"height":640,"maximized":false}"#.utf8)
            .write(to: URL(fileURLWithPath: config + "/fetchplay/window.json"))

        // It opens on a video (the video page at phone size), the second run on the download page.
        let clip = try Clips.webm(seconds: 3, audio: false)
        let (first, window) = try launch([clip], folder: folder, name: "first", config: config, cache: cache)
        // `fetchplay` became the window's program, and that goes by the app's name.
        let pid = first.process.processIdentifier
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(program.hasSuffix("/fetchplay-window"), "\(program)")
        #expect(try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) == "fetchplay\n")
        let size = try Desktop.geometry(of: window)
        #expect(abs((size["WIDTH"] ?? 0) - 360) <= 12 && abs((size["HEIGHT"] ?? 0) - 640) <= 12, "opened at \(size)")
        // The person makes it bigger, then closes it.
        try Desktop.xdotool(["windowsize", "\(window)", "900", "700"])
        #expect(waitUntil(timeout: .seconds(5)) { (try? Desktop.geometry(of: window))?["WIDTH"] == 900 })
        // The size is saved once it settles (X has it before GTK has laid the window out: a
        // close at once could find GTK's size still the old one), and again at the close.
        let saved = { () -> (width: Int, height: Int)? in
            let data = FileManager.default.contents(atPath: config + "/fetchplay/window.json")
            let geometry = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard let width = geometry?["width"] as? Int, let height = geometry?["height"] as? Int else { return nil }
            return (width, height)
        }
        let resized = { saved().map { abs($0.width - 900) <= 12 && abs($0.height - 700) <= 12 } == true }
        #expect(waitUntil(timeout: .seconds(5)) { resized() }, "saved \(String(describing: saved()))")
        try close(first, window: window)
        #expect(Self.problems(in: first.standardError).isEmpty, "\(Self.problems(in: first.standardError))")
        #expect(resized(), "saved at the close: \(String(describing: saved()))")

        let (second, again) = try launch([], folder: folder, name: "second", config: config, cache: cache)
        let reopened = try Desktop.geometry(of: again)
        #expect(abs((reopened["WIDTH"] ?? 0) - 900) <= 12 && abs((reopened["HEIGHT"] ?? 0) - 700) <= 12,
                "reopened at \(reopened)")
        try close(second, window: again)
        #expect(Self.problems(in: second.standardError).isEmpty, "\(Self.problems(in: second.standardError))")
    }
}

import Foundation
import TestSupport

/// A shell script run on a private session bus (`dbus-run-session`), as the desktop would start
/// `fetchplay` there, with `BIN` (the built binary) and `OUT` (a folder for its report) set.
enum SessionBusScript {
    /// Shell functions for a script that talks to the app's MPRIS object: `mpris ARGS…` calls it,
    /// `player PROPERTY` reads a property of `org.mpris.MediaPlayer2.Player`, `wait_for PROPERTY
    /// TEXT` prints "yes" once that property's value holds TEXT (within 30 s), else what it was.
    static let mprisFunctions = """
        mpris() { gdbus call --session --dest org.mpris.MediaPlayer2.fetchplay --object-path /org/mpris/MediaPlayer2 "$@"; }
        player() { mpris --method org.freedesktop.DBus.Properties.Get org.mpris.MediaPlayer2.Player "$1" 2>/dev/null; }
        wait_for() {
            for _ in $(seq 600); do
                case $(player "$1") in *"$2"*) echo yes; return;; esac
                sleep 0.05
            done
            echo "timeout, last: $(player "$1")"
        }
        """

    /// The end of such a script: quit through MPRIS, wait for the app (`$app`) to go, killing it
    /// if it stays, and write its exit status to the report as `exit=N`.
    static let quitThroughMPRIS = """
        mpris --method org.mpris.MediaPlayer2.Quit >/dev/null
        for _ in $(seq 200); do kill -0 $app 2>/dev/null || break; sleep 0.05; done
        kill -0 $app 2>/dev/null && { echo "still running after Quit" >>"$OUT/report"; kill -KILL $app; }
        wait $app
        echo "exit=$?" >>"$OUT/report"
        """

    /// A report's `key=value` lines (the first of each key).
    static func fields(_ report: String) -> [String: String] {
        Dictionary(report.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
    }

    /// Runs `script` with `variables` on top of `base` (and the renderer settings the window
    /// tests use); returns its exit status and the text it wrote to `$OUT/report`.
    static func run(_ script: String, out folder: TemporaryDirectory, variables: [String: String],
                    base: [String: String] = ProcessInfo.processInfo.environment) throws -> (status: Int32, report: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
        process.arguments = ["--", "/bin/sh", "-c", script]
        var environment = base
        environment["BIN"] = FetchplayProcess.executable
        environment["OUT"] = folder.path
        environment["GSK_RENDERER"] = "cairo"
        environment["NO_AT_BRIDGE"] = "1"
        environment["GTK_A11Y"] = "none"
        environment["FETCHPLAY_CACHE_DIR"] = nil
        // The test run's own configuration folder, unless the test gives one (as headless runs).
        if environment["XDG_CONFIG_HOME"] == ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] {
            environment["XDG_CONFIG_HOME"] = FetchplayProcess.configurationFolder
        }
        process.environment = environment.merging(variables) { $1 }
        // Files, not pipes: the bus daemons inherit the descriptors and outlive the script.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Unblocked signals: dbus-run-session ends its bus with SIGTERM, which a daemon started
        // with the test thread's mask would never see (and would outlive the test).
        try process.runWithSignalsUnblocked()
        process.waitUntilExit()
        let report = (try? String(contentsOfFile: folder.file("report"), encoding: .utf8)) ?? ""
        return (process.terminationStatus, report)
    }
}

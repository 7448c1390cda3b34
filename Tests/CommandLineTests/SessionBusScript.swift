import Foundation
import TestSupport

/// A shell script run on a private session bus (`dbus-run-session`), as the desktop would start
/// `fetchplay` there, with `BIN` (the built binary) and `OUT` (a folder for its report) set.
enum SessionBusScript {
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
        process.environment = environment.merging(variables) { $1 }
        // Files, not pipes: the bus daemons inherit the descriptors and outlive the script.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let report = (try? String(contentsOfFile: folder.file("report"), encoding: .utf8)) ?? ""
        return (process.terminationStatus, report)
    }
}

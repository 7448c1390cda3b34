import Foundation
import ThreadKit

/// The desktop around windows under test: a real window manager (openbox) on the test's X
/// display, and `xdotool`, whose key presses and clicks go through the XTest extension as a
/// person's would (never `--window`, whose synthetic events GTK ignores).
public enum Desktop {
    /// Starts openbox on `$DISPLAY` once, unless a window manager already runs there.
    public static func ensureWindowManager() throws {
        try openbox.withLock { openbox throws in
            try startWindowManager(&openbox)
        }
    }

    private static func startWindowManager(_ openbox: inout Process?) throws {
        if windowManagerRuns() { return }
        // A fresh X server may refuse the first client for a moment: try a few times.
        for _ in 0..<3 {
            if openbox?.isRunning != true {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openbox")
                process.arguments = ["--sm-disable"]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                openbox = process
            }
            if waitUntil(timeout: .seconds(10), { windowManagerRuns() || openbox?.isRunning != true }),
               windowManagerRuns() { return }
        }
        throw DesktopError(message: "openbox did not start on \(ProcessInfo.processInfo.environment["DISPLAY"] ?? "no display")")
    }

    /// Runs `xdotool ARGUMENTS`; throws unless it exits 0. Returns its output.
    @discardableResult
    public static func xdotool(_ arguments: [String]) throws -> String {
        let result = try Command.run("/usr/bin/xdotool", arguments, timeout: .seconds(20))
        guard result.status == 0, !result.timedOut else {
            throw DesktopError(message: "xdotool \(arguments.joined(separator: " ")): status \(result.status) \(result.standardError)")
        }
        return result.output
    }

    /// The `--shell` geometry of X window `id`: X, Y, WIDTH, HEIGHT on the root window.
    public static func geometry(of id: UInt) throws -> [String: Int] {
        var values: [String: Int] = [:]
        for line in try xdotool(["getwindowgeometry", "--shell", "\(id)"]).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// The openbox this process started (it ends with the X server).
    private static let openbox = Locked<Process?>(nil)

    private static func windowManagerRuns() -> Bool {
        guard let result = try? Command.run("/usr/bin/xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"],
                                            timeout: .seconds(5)) else { return false }
        return result.status == 0 && result.output.contains("window id")
    }
}

public struct DesktopError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

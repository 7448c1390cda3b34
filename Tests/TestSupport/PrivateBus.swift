import Foundation

/// A session bus of the tests' own: a `dbus-daemon --session` started for this process, so the
/// app under test and the stand-ins for desktop services (`DesktopPeers`) meet there and never
/// on the developer's own session.
///
/// The daemon dies with the test process: `setpriv --pdeathsig KILL` kills it when the thread
/// that started it ends (the process's end included), and it starts with no signal blocked.
public final class PrivateBus: @unchecked Sendable {
    /// What `DBUS_SESSION_BUS_ADDRESS` says to reach it.
    public let address: String
    private let process: Process
    private let folder: TemporaryDirectory

    public init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-bus")
        let addressFile = folder.file("address")
        FileManager.default.createFile(atPath: addressFile, contents: nil)
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--pdeathsig", "KILL", "/usr/bin/dbus-daemon", "--session", "--nofork",
                             "--print-address=1"]
        process.standardInput = FileHandle.nullDevice
        // A file, not a pipe: nobody reads it after the first line, and the daemon never blocks.
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: addressFile))
        process.standardError = FileHandle.nullDevice
        try process.runFromLifelongThread()
        var address = ""
        let started = waitUntil(timeout: .seconds(10)) {
            address = (try? String(contentsOfFile: addressFile, encoding: .utf8)) ?? ""
            return address.hasSuffix("\n") || !process.isRunning
        }
        guard started, process.isRunning else {
            throw DesktopError(message: "dbus-daemon did not start a session bus")
        }
        self.address = address.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment a child process needs to join this bus.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
    }

    /// Runs `gdbus ARGUMENTS` on this bus and waits for it (at most `timeout`), turning `iterate`
    /// meanwhile: the app answering the call may be this very process, whose main loop must run.
    public func gdbus(_ arguments: [String], timeout: Duration = .seconds(20),
                      iterate: () -> Void) throws -> (status: Int32, output: String) {
        let out = folder.file("gdbus-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out, contents: nil)
        let call = Process()
        call.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        call.arguments = arguments
        call.environment = environment
        call.standardInput = FileHandle.nullDevice
        call.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        call.standardError = call.standardOutput
        try call.runWithSignalsUnblocked()
        let deadline = ContinuousClock.now + timeout
        while call.isRunning, ContinuousClock.now < deadline { iterate() }
        if call.isRunning { call.terminate() }
        call.waitUntilExit()
        return (call.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL) // setpriv execs the daemon: the same process
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

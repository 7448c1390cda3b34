import Foundation

/// What a finished command left behind.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when `terminatedBySignal`.
    public let status: Int32
    public let terminatedBySignal: Bool
    /// Whether it outlived its timeout and was killed.
    public let timedOut: Bool
    public let standardOutput: [UInt8]
    public let standardError: String

    /// The standard output as text.
    public var output: String { String(decoding: standardOutput, as: UTF8.self) }
}

/// Runs command-line tools (`curl`, the `fetchplay` executable) from tests.
public enum Command {
    /// Runs `executable` with `arguments` and waits for it, at most `timeout`.
    ///
    /// Output goes to files rather than pipes, so a chatty command can never block on a full
    /// pipe while the test waits for it to exit.
    ///
    /// ```swift
    /// let result = try Command.run("/usr/bin/curl", ["-sS", server.url("/v.bin")])
    /// ```
    /// - Parameter environment: the command's whole environment; nil: the test's.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Duration = .seconds(60)) throws -> CommandResult {
        let folder = try TemporaryDirectory(prefix: "fetchplay-command")
        let outPath = folder.file("stdout"), errPath = folder.file("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? out.close()
            try? err.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let exited = Gate()
        process.terminationHandler = { _ in exited.open() }
        try process.run()

        var timedOut = false
        if !exited.wait(timeout: timeout / .seconds(1)) {
            timedOut = true
            process.terminate()
            if !exited.wait(timeout: 5) {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
        }
        return CommandResult(
            status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal,
            timedOut: timedOut,
            standardOutput: Array((try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()),
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

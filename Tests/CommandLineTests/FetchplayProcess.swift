import Foundation
import Glibc
import TestSupport

/// The built `fetchplay` executable, run as a separate process with no display.
struct FetchplayProcess {
    /// Beside the test bundle in the build folder, or `FETCHPLAY_BIN`.
    static var executable: String { FetchplayBinary.path }

    /// The environment without any display, so a window could not open even by mistake, and in
    /// English whatever the developer's language (a test can set LANGUAGE on top).
    ///
    /// Its `XDG_CONFIG_HOME` is a folder of the test run's own (a test can give another): the
    /// developer's preferences (a speed limit, say) never change a test, and the windows the
    /// tests open never change the size the developer's own window opens at.
    static var headlessEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "FETCHPLAY_CACHE_DIR", "LANGUAGE", "LC_ALL", "LC_MESSAGES"] {
            environment[name] = nil
        }
        environment["LANG"] = "C.UTF-8"
        environment["XDG_CONFIG_HOME"] = configurationFolder
        // Nor the developer's site support: a test that wants yt-dlp says which.
        environment["XDG_DATA_HOME"] = configurationFolder + "/data"
        return environment
    }

    /// The configuration folder of this test run's processes.
    static var configurationFolder: String { configuration.path }

    private static let configuration: TemporaryDirectory = {
        do {
            return try TemporaryDirectory(prefix: "fetchplay-tests-config")
        } catch {
            preconditionFailure("no temporary folder for the configuration: \(error)")
        }
    }()

    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    /// Starts `fetchplay ARGUMENTS` with its output going to files in `folder`.
    ///
    /// - Parameters:
    ///   - environment: variables to set on top of `headlessEnvironment`.
    ///   - directory: the working directory, when it matters (relative paths).
    init(_ arguments: [String], folder: TemporaryDirectory, name: String = "run",
         environment: [String: String] = [:], directory: String? = nil) throws {
        stdoutPath = folder.file("\(name).out")
        stderrPath = folder.file("\(name).err")
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        process.environment = Self.headlessEnvironment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    /// Runs `fetchplay ARGUMENTS` to the end (at most `timeout`).
    static func run(_ arguments: [String], folder: TemporaryDirectory, name: String = "run",
                    environment: [String: String] = [:], directory: String? = nil,
                    timeout: Duration = .seconds(60)) throws -> FetchplayProcess {
        let run = try FetchplayProcess(arguments, folder: folder, name: name, environment: environment,
                                       directory: directory)
        if !run.waitForExit(timeout: timeout) {
            run.send(SIGKILL)
            run.process.waitUntilExit()
        }
        return run
    }

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end; false on timeout.
    func waitForExit(timeout: Duration) -> Bool {
        waitUntil(timeout: timeout) { !process.isRunning }
    }

    var status: Int32 { process.terminationStatus }
    var killedBySignal: Bool { process.terminationReason == .uncaughtSignal }
    var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var lastLine: String? { standardOutput.split(separator: "\n").last.map(String.init) }
}

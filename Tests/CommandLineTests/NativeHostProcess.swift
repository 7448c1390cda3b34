import Foundation
import Glibc
import TestSupport

/// `fetchplay` run as the browser runs its native messaging host: standard input a pipe the
/// test writes framed messages to, standard output (the framed answers) and error in files.
final class NativeHostProcess {
    static let chromiumOrigin = "chrome-extension://peobkohdifbjbdcfmfmpemobecfkeiif/"
    static let firefoxID = "fetchplay@fetchplay.github.io"

    /// One framed message: 32-bit native-endian length, then the bytes.
    static func frame(_ body: [UInt8]) -> [UInt8] { length(UInt32(body.count)) + body }

    static func frame(_ json: String) -> [UInt8] { frame(Array(json.utf8)) }

    static func frame(_ object: [String: Any]) -> [UInt8] {
        // The test's own literals always encode.
        frame(Array(try! JSONSerialization.data(withJSONObject: object)))
    }

    /// A length as the frame carries it.
    static func length(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    let process = Process()
    private let input = Pipe()
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `program ARGUMENTS` with `environment` on top of the tests' headless one.
    init(program: String, arguments: [String], folder: TemporaryDirectory, name: String,
         environment: [String: String] = [:]) throws {
        stdoutPath = folder.file("\(name).out")
        stderrPath = folder.file("\(name).err")
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = FetchplayProcess.headlessEnvironment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.runWithSignalsUnblocked()
    }

    /// Writes `bytes` to the host's standard input; false once the host closed it (SIGPIPE is
    /// ignored for the moment of the write, so a host that left never ends the tests).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        let fd = input.fileHandleForWriting.fileDescriptor
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for the host to end; false (and the host killed) when it outlives `timeout`.
    func waitForExit(timeout: Duration = .seconds(20)) -> Bool {
        let ended = waitUntil(timeout: timeout) { !process.isRunning }
        if !ended {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return ended
    }

    var status: Int32 { process.terminationStatus }
    var crashed: Bool { process.terminationReason == .uncaughtSignal }
    var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The framed answers on standard output, each a JSON object; nil when the output is not a
    /// sequence of well-framed objects.
    var answers: [[String: Any]]? {
        guard let data = FileManager.default.contents(atPath: stdoutPath) else { return nil }
        let bytes = [UInt8](data)
        var answers: [[String: Any]] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { return nil }
            let length = Int(bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            offset += 4
            guard offset + length <= bytes.count,
                  let object = try? JSONSerialization.jsonObject(with: Data(bytes[offset..<offset + length])) as? [String: Any]
            else { return nil }
            answers.append(object)
            offset += length
        }
        return answers
    }

    /// Whether `answer` is `{"ok":false,"error":"…"}` with a sentence.
    static func isError(_ answer: [String: Any]) -> Bool {
        answer["ok"] as? Bool == false && !((answer["error"] as? String) ?? "").isEmpty
    }
}

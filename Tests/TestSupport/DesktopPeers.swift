import Foundation

/// Stand-ins for the desktop's services on a `PrivateBus`: a notification server, a file
/// manager and a session manager, as `Tests/tools/desktop-peers.py` provides them. They are
/// peers on the bus like the real ones (the app's own code is untouched); each call they get is
/// logged, and the tests read what was asked.
public final class DesktopPeers: @unchecked Sendable {
    public enum Service: String, Sendable {
        /// `org.freedesktop.Notifications`: what GNotification calls without GNOME Shell.
        case notifications
        /// `org.freedesktop.FileManager1`: what Show in Files calls.
        case fileManager = "file-manager"
        /// `org.gnome.SessionManager`: what `gtk_application_inhibit` calls.
        case sessionManager = "session-manager"
    }

    /// One method call a peer received.
    public struct Call: @unchecked Sendable {
        public let service: String
        public let method: String
        /// The arguments as JSON made them: strings, numbers, arrays, dictionaries.
        public let args: [Any]
    }

    private let process: Process
    private let commands: Pipe
    private let folder: TemporaryDirectory
    private let log: String
    private let output: String
    private var emitted = 0

    /// Whether the tools are there: dbus-daemon, setpriv and Python with GObject introspection
    /// (Debian's python3-gi). Tests that need the peers are enabled on it.
    public static let isAvailable: Bool = {
        guard ["/usr/bin/dbus-daemon", "/usr/bin/setpriv", "/usr/bin/gdbus", "/usr/bin/python3"]
            .allSatisfy(FileManager.default.isExecutableFile(atPath:)) else { return false }
        let probe = try? Command.run("/usr/bin/python3", ["-c", "from gi.repository import Gio"], timeout: .seconds(20))
        return probe?.status == 0
    }()

    /// The stand-in script, beside the sources of the tests.
    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent() // TestSupport
        url.deleteLastPathComponent() // Tests
        return url.appendingPathComponent("tools/desktop-peers.py").path
    }()

    /// Starts `services` on `bus` and waits until each owns its name.
    public init(bus: PrivateBus, services: [Service]) throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-peers")
        log = folder.file("calls.jsonl")
        output = folder.file("stdout")
        FileManager.default.createFile(atPath: log, contents: nil)
        FileManager.default.createFile(atPath: output, contents: nil)
        commands = Pipe()
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, log] + services.map(\.rawValue)
        process.environment = bus.environment
        process.standardInput = commands
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        FileManager.default.createFile(atPath: folder.file("stderr"), contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("stderr")))
        try process.runWithSignalsUnblocked()
        let ready = waitUntil(timeout: .seconds(15)) { lines().contains("ready") || !process.isRunning }
        guard ready, process.isRunning else {
            let problem = (try? String(contentsOfFile: folder.file("stderr"), encoding: .utf8)) ?? ""
            throw DesktopError(message: "the desktop stand-ins did not start: \(problem)")
        }
    }

    private func lines() -> [String] {
        ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every call received so far, in order; only `method`'s when given.
    public func calls(_ method: String? = nil) -> [Call] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Call? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let service = object["service"] as? String, let name = object["method"] as? String,
                  method == nil || name == method else { return nil }
            return Call(service: service, method: name, args: object["args"] as? [Any] ?? [])
        }
    }

    /// Makes the notification server emit `ActionInvoked(id, action)`, as a click on the
    /// notification (action "default") or on one of its buttons does; waits until it is sent.
    public func invoke(notification id: UInt32, action: String) throws {
        try send("invoke \(id) \(action)")
    }

    private func send(_ command: String) throws {
        emitted += 1
        let expected = emitted
        commands.fileHandleForWriting.write(Data((command + "\n").utf8))
        guard waitUntil(timeout: .seconds(10), { lines().filter { $0.hasPrefix("emitted") }.count >= expected }) else {
            throw DesktopError(message: "the notification server did not emit for “\(command)”")
        }
    }

    public func stop() {
        guard process.isRunning else { return }
        try? commands.fileHandleForWriting.close()
        if !waitUntil(timeout: .seconds(5), { !process.isRunning }) { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

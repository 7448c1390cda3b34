import Foundation
import Glibc
import ThreadKit

/// A real proxy on a free port of 127.0.0.1, started by a test: Debian's `tinyproxy` (http, and
/// https through CONNECT) or `microsocks` (socks5, with a user and password if given).
///
/// ```swift
/// let proxy = try LocalProxy.http()
/// // fetchplay --download URL --proxy proxy.url ...
/// #expect(server.requests.last?["via"]?.contains("tinyproxy") == true)
/// ```
///
/// tinyproxy adds a `Via` header to what it forwards, so the server's records show that a
/// request went through it; its configuration and log live in a temporary folder of its own.
public final class LocalProxy: Sendable {
    public static let tinyproxy = "/usr/bin/tinyproxy"
    public static let microsocks = "/usr/bin/microsocks"

    public let port: Int
    /// `http://127.0.0.1:PORT` or `socks5://[USER:PASSWORD@]127.0.0.1:PORT`.
    public let url: String
    private let folder: TemporaryDirectory
    private let process: Locked<Process?>

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// tinyproxy, which forwards http and tunnels CONNECT to any port of 127.0.0.1.
    public static func http() throws -> LocalProxy {
        try LocalProxy(executable: tinyproxy, scheme: "http", credentials: nil) { port, folder in
            let config = """
                Port \(port)
                Listen 127.0.0.1
                Timeout 30
                MaxClients 50
                Allow 127.0.0.1
                LogFile "\(folder.file("tinyproxy.log"))"
                LogLevel Info

                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: folder.file("tinyproxy.conf")))
            return ["-d", "-c", folder.file("tinyproxy.conf")]
        }
    }

    /// microsocks, a SOCKS5 proxy; with `user` and `password` it lets only them through.
    public static func socks5(user: String? = nil, password: String? = nil) throws -> LocalProxy {
        let credentials = user.flatMap { user in password.map { (user, $0) } }
        return try LocalProxy(executable: microsocks, scheme: "socks5", credentials: credentials) { port, _ in
            ["-i", "127.0.0.1", "-p", "\(port)"] + (credentials.map { ["-u", $0.0, "-P", $0.1] } ?? [])
        }
    }

    private init(executable: String, scheme: String, credentials: (String, String)?,
                 arguments: (Int, TemporaryDirectory) throws -> [String]) throws {
        guard access(executable, X_OK) == 0 else {
            throw StartError(description: "\(executable) is missing: run scripts/install-deps")
        }
        let folder = try TemporaryDirectory(prefix: "fetchplay-proxy")
        // The port is free when chosen but may be taken before the proxy binds it: try a few.
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = try arguments(port, folder)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runWithSignalsUnblocked()
            let ready = waitUntil(timeout: .seconds(10)) { !process.isRunning || Loopback.isAccepting(port: port) }
            if ready, process.isRunning {
                self.port = port
                self.folder = folder
                self.process = Locked(process)
                let user = credentials.map { "\($0.0):\($0.1)@" } ?? ""
                url = "\(scheme)://\(user)127.0.0.1:\(port)"
                return
            }
            Self.terminate(process)
        }
        throw StartError(description: "\(executable) did not start on 127.0.0.1")
    }

    deinit { stop() }

    /// What tinyproxy logged so far (its connections and requests).
    public var log: String { (try? String(contentsOfFile: folder.file("tinyproxy.log"), encoding: .utf8)) ?? "" }

    /// Stops the proxy and waits for it; safe to call more than once.
    public func stop() {
        guard let process = self.process.withLock({ process in
            defer { process = nil }
            return process
        }) else { return }
        Self.terminate(process)
        folder.remove()
    }

    private static func terminate(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !waitUntil(timeout: .seconds(5), { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}

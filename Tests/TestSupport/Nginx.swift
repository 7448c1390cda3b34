import Foundation
import Glibc
import ThreadKit

/// A real nginx serving a folder on 127.0.0.1, for integration tests and benchmarks.
///
/// ```swift
/// let site = try TemporaryDirectory()
/// try site.write(TestData.bytes(count: 1 << 20, seed: 7), to: "clip.webm")
/// let nginx = try Nginx(serving: site.path)
/// // download nginx.url("/clip.webm") ...
/// nginx.stop()
/// ```
///
/// Everything nginx writes (pid, logs, temp folders, config) lives in its own temporary prefix
/// folder; it runs in the foreground (`daemon off`) as a child of the test process. Started as
/// root, nginx serves through unprivileged workers, so the served folder and its parents must be
/// world-readable: `TemporaryDirectory` folders are.
public final class Nginx: Sendable {
    /// The nginx binary of the Debian package `nginx`.
    public static let executable = "/usr/sbin/nginx"

    public let port: Int
    /// The certificate it serves https with; nil: plain http.
    public let certificate: TestCertificate?
    /// The folder being served.
    public let root: String
    private let prefix: TemporaryDirectory
    private let process: Locked<Process?>

    /// Why nginx could not be started.
    public enum StartError: Error, CustomStringConvertible {
        case notInstalled
        /// A folder workers cannot read or enter: they would answer 403.
        case notWorldReadable(String)
        /// nginx exited or never accepted connections; its error log says why.
        case failed(errorLog: String)

        public var description: String {
            switch self {
            case .notInstalled: "\(Nginx.executable) is missing: install the Debian package nginx"
            case .notWorldReadable(let path): "\(path) is not world-readable, nginx workers would answer 403"
            case .failed(let log): "nginx did not start:\n\(log)"
            }
        }
    }

    /// Starts nginx serving `root` and returns once it accepts connections.
    ///
    /// - Parameter limitRate: `limit_rate` per connection. Bytes per second; nil: unlimited.
    ///   nginx lets about one second's worth through at once, so a file must be several
    ///   seconds long at that rate for the limit to show.
    /// - Parameter maxRanges: nginx's `max_ranges`; 0: ranges refused (no `Accept-Ranges`,
    ///   every answer a 200 with the whole file). nil: nginx's default, any number.
    /// - Parameter certificate: serve https with it (the links then start with `https://`).
    public init(serving root: String, limitRate: Int? = nil, maxRanges: Int? = nil, certificate: TestCertificate? = nil) throws {
        guard access(Self.executable, X_OK) == 0 else { throw StartError.notInstalled }
        let root = URL(fileURLWithPath: root).standardizedFileURL.path
        try Self.checkWorldReadable(root)
        let prefix = try TemporaryDirectory(prefix: "fetchplay-nginx")
        // The port is free when chosen but may be taken before nginx binds it: try a few.
        var lastLog = ""
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let config = Self.configuration(prefix: prefix.path, root: root, port: port, limitRate: limitRate,
                                            maxRanges: maxRanges, certificate: certificate)
            try Data(config.utf8).write(to: URL(fileURLWithPath: prefix.file("nginx.conf")))
            unlink(prefix.file("nginx.pid"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = ["-p", prefix.path + "/", "-c", prefix.file("nginx.conf"),
                                 "-e", prefix.file("error.log")]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // nginx writes its pid file only after binding every listen socket, so pid file +
            // accepting means this nginx (not a process that took the port) is serving.
            let ready = waitUntil(timeout: .seconds(10)) {
                !process.isRunning
                    || (access(prefix.file("nginx.pid"), F_OK) == 0 && Loopback.isAccepting(port: port))
            }
            if ready && process.isRunning {
                self.port = port
                self.certificate = certificate
                self.root = root
                self.prefix = prefix
                self.process = Locked(process)
                return
            }
            Self.terminate(process)
            lastLog = (try? String(contentsOfFile: prefix.file("error.log"), encoding: .utf8)) ?? ""
            if !lastLog.contains("Address already in use") { break }
        }
        throw StartError.failed(errorLog: lastLog)
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` (`https://` with a certificate) followed by `path` (which starts with `/`).
    public func url(_ path: String) -> String { "\(certificate == nil ? "http" : "https")://127.0.0.1:\(port)\(path)" }

    /// nginx's error log so far, for the message of a failing test.
    public var errorLog: String {
        (try? String(contentsOfFile: prefix.file("error.log"), encoding: .utf8)) ?? ""
    }

    /// nginx's access log so far: one line per request it answered (none for a client that
    /// gave up during the TLS handshake).
    public var accessLog: String {
        (try? String(contentsOfFile: prefix.file("access.log"), encoding: .utf8)) ?? ""
    }

    /// Stops nginx (SIGTERM, then SIGKILL if it lingers), waits for it, removes its prefix
    /// folder. Safe to call more than once.
    public func stop() {
        guard let process = self.process.withLock({ process in
            defer { process = nil }
            return process
        }) else { return }
        Self.terminate(process)
        prefix.remove()
    }

    private static func terminate(_ process: Process) {
        guard process.isRunning else { return }
        // SIGTERM is nginx's fast shutdown: the master stops its workers and exits at once,
        // where SIGQUIT would wait for slow (limit_rate) transfers to finish.
        kill(process.processIdentifier, SIGTERM)
        if !waitUntil(timeout: .seconds(5), { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    private static func checkWorldReadable(_ root: String) throws {
        var path = root
        var needed = S_IROTH | S_IXOTH
        while true {
            var info = stat()
            guard stat(path, &info) == 0 else { throw SystemCallError(call: "stat \(path)", errno: errno) }
            if info.st_mode & needed != needed { throw StartError.notWorldReadable(path) }
            if path == "/" { return }
            path = (path as NSString).deletingLastPathComponent
            needed = S_IXOTH
        }
    }

    private static func configuration(prefix: String, root: String, port: Int, limitRate: Int?,
                                      maxRanges: Int?, certificate: TestCertificate?) -> String {
        let listen = certificate.map {
            "listen 127.0.0.1:\(port) ssl; ssl_certificate \"\($0.certificatePath)\"; ssl_certificate_key \"\($0.keyPath)\";"
        } ?? "listen 127.0.0.1:\(port);"
        return """
        daemon off;
        worker_processes 1;
        pid "\(prefix)/nginx.pid";
        error_log "\(prefix)/error.log" warn;
        events { worker_connections 256; }
        http {
            access_log "\(prefix)/access.log";
            client_body_temp_path "\(prefix)/client_body_temp";
            proxy_temp_path "\(prefix)/proxy_temp";
            fastcgi_temp_path "\(prefix)/fastcgi_temp";
            uwsgi_temp_path "\(prefix)/uwsgi_temp";
            scgi_temp_path "\(prefix)/scgi_temp";
            types { video/webm webm; video/mp4 mp4; text/plain txt; }
            default_type application/octet-stream;
            sendfile on;
            gzip off;
            server {
                \(listen)
                root "\(root)";
                \(limitRate.map { "limit_rate \($0);" } ?? "")
                \(maxRanges.map { "max_ranges \($0);" } ?? "")
            }
        }

        """
    }
}

import Foundation
import Glibc

/// A fresh folder under /tmp, world-readable, removed on `remove()` or deinit.
///
/// World-readable because nginx started as root serves through unprivileged workers: a 0700
/// `mkdtemp` folder, or one under a private `$TMPDIR`, would give 403.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `/tmp/<prefix>-XXXXXX` with mode 0755.
    public init(prefix: String = "fetchplay-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw SystemCallError(call: "mkdtemp", errno: errno)
        }
        path = String(cString: created)
        try systemCall("chmod \(path)") { chmod(path, 0o755) }
    }

    deinit { remove() }

    /// The path of `name` inside the folder (which need not exist yet).
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `bytes` to `name` inside the folder, readable by everyone; returns its path.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        try systemCall("chmod \(target)") { chmod(target, 0o644) }
        return target
    }

    /// Deletes the folder and everything in it; safe to call more than once.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

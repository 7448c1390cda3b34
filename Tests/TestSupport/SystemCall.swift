import Glibc

/// A failed system call, with its errno, so a test failure names the call and the reason.
public struct SystemCallError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let errno: Int32

    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The one gate for system calls in TestSupport: runs `body` again while it fails with EINTR,
/// and turns any other failure (a result of -1) into a `SystemCallError` naming `name`.
@discardableResult
func systemCall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno != EINTR { throw SystemCallError(call: name, errno: errno) }
    }
}

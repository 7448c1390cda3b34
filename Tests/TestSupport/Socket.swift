// The POSIX socket calls the test servers make, through `systemCall`. Every descriptor is
// close-on-exec so that `curl` or `nginx` children never inherit a connection: an inherited
// socket would stay open after the server closed it, hiding a dropped connection.
import Glibc

enum Socket {
    /// A listening TCP socket on 127.0.0.1; `port` 0 lets the kernel choose.
    static func listen(port: Int = 0, backlog: Int32 = 128) throws -> (fd: Int32, port: Int) {
        let fd = try systemCall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            var yes: Int32 = 1
            try systemCall("setsockopt") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) }
            var address = loopback(port: port)
            try systemCall("bind") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            try systemCall("listen") { Glibc.listen(fd, backlog) }
            return (fd, try localPort(of: fd))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Connects to 127.0.0.1:`port`; the caller closes the descriptor.
    static func connect(port: Int) throws -> Int32 {
        let fd = try systemCall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        var address = loopback(port: port)
        do {
            try systemCall("connect") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    static func localPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try systemCall("getsockname") {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends all of `bytes`; false when the peer is gone. MSG_NOSIGNAL turns a closed peer into
    /// EPIPE instead of a SIGPIPE that would kill the whole test process.
    static func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        let sent: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        return sent ?? sendAll(fd, Array(bytes))
    }

    /// Reads what is available (blocking until something is); nil at end of stream or on error.
    static func receive(_ fd: Int32, maximum: Int = 16 * 1024) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximum, 0) }
            if n > 0 { return Array(buffer[0..<n]) }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
        return address
    }
}

/// Ports on 127.0.0.1 for servers the tests start as separate processes.
public enum Loopback {
    /// A port that was free a moment ago: bound with port 0, then closed. Another process can
    /// take it before the caller binds it, so callers retry on "address in use".
    public static func freePort() throws -> Int {
        let (fd, port) = try Socket.listen(port: 0, backlog: 1)
        close(fd)
        return port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func isAccepting(port: Int) -> Bool {
        guard let fd = try? Socket.connect(port: port) else { return false }
        close(fd)
        return true
    }
}

import Glibc

/// One TCP socket of the watch server, on 127.0.0.1 only, closed when it goes: the one place
/// FetchCore calls the socket API, turning its failures into `DownloadError`s.
///
/// Every wait is a `poll` of at most `tick` milliseconds, so a thread blocked here notices its
/// server closing within that time.
final class LoopbackSocket: Sendable {
    let fd: Int32

    /// How long one wait lasts before its caller looks at its stop signal again.
    static let tick: Int32 = 250

    private init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    /// A socket listening on 127.0.0.1 at a port the system picks; `port` tells which.
    static func listening() throws(DownloadError) -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FileIO.error("socket", "127.0.0.1") }
        let made = LoopbackSocket(fd: fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw FileIO.error("bind", "127.0.0.1") }
        guard listen(fd, 16) == 0 else { throw FileIO.error("listen", "127.0.0.1") }
        return made
    }

    /// The port it listens on.
    var port: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// The next connection, or nil when none came within a tick.
    func accept() -> LoopbackSocket? {
        guard ready(for: Int16(POLLIN)) else { return nil }
        // The listener is close-on-exec; an accepted socket is marked so at once (Swift's Glibc
        // has no accept4), so a child started later (yt-dlp) never holds a player's connection.
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return LoopbackSocket(fd: client)
    }

    /// Whether the socket can be read (or written) now, waiting a tick at most.
    func ready(for events: Int16) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        return poll(&entry, 1, Self.tick) == 1
    }

    /// Up to `count` bytes; empty when none came within a tick; nil when the peer closed or the
    /// socket failed.
    func receive(upTo count: Int) -> [UInt8]? {
        guard ready(for: Int16(POLLIN)) else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        if got < 0, errno == EINTR || errno == EAGAIN { return [] }
        guard got > 0 else { return nil }
        return Array(bytes.prefix(got))
    }

    /// Whether the peer closed its side (a player gave the request up), without waiting.
    var isClosedByPeer: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        var byte: UInt8 = 0
        let got = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)
    }

    /// Sends all of `bytes`; false when the peer went (a player that seeked elsewhere closes
    /// its request): never a SIGPIPE.
    func send(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            done += sent
        }
        return true
    }
}

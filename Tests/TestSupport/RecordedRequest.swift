/// One header line: the name as the server recorded it (lowercased) and its value, trimmed.
public struct HTTPHeader: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    /// The value as text (UTF-8, with U+FFFD for bytes that are not).
    public let value: String
    /// The value exactly as sent or received on the wire.
    public let bytes: [UInt8]

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
        self.bytes = Array(value.utf8)
    }

    /// A header whose value is raw bytes, which need not be UTF-8 (or may hold a CR).
    public init(_ name: String, bytes: [UInt8]) {
        self.name = name
        self.value = String(decoding: bytes, as: UTF8.self)
        self.bytes = bytes
    }

    public var description: String { "\(name): \(value)" }
}

/// A request exactly as a client sent it to `FaultServer`, kept so tests can assert what the
/// client asked for (`range`, `if-range`, `accept-encoding`...).
public struct RecordedRequest: Sendable, Equatable {
    /// `GET`, `HEAD`...
    public let method: String
    /// The request target as sent, percent-escapes and query included.
    public let target: String
    /// `target` without its query: the key resources are registered under.
    public var path: String { String(target.prefix { $0 != "?" }) }
    /// `HTTP/1.1` or `HTTP/1.0`.
    public let version: String
    /// Header lines in the order sent, names lowercased.
    public let headers: [HTTPHeader]
    /// Which TCP connection carried it, numbered from 1 in accept order: tells a reused
    /// connection from a reconnect.
    public let connection: Int

    public init(method: String, target: String, version: String, headers: [HTTPHeader], connection: Int) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.connection = connection
    }

    /// The value of the first header called `name` (any case), or nil.
    public subscript(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// The exact bytes of the first header called `name` (any case), or nil.
    public func bytes(of name: String) -> [UInt8]? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.bytes
    }

    /// Whether the client asked to close the connection after this response.
    var wantsClose: Bool {
        let connection = self["connection"]?.lowercased()
        return version == "HTTP/1.0" ? connection != "keep-alive" : connection == "close"
    }
}

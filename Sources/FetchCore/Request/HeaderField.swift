import Foundation
import Localization

/// One extra request header a person (or the browser) gave, checked before it can reach a
/// request: a token for a name, a value without line breaks or other control characters, and
/// none of the headers the engine sets itself.
public struct HeaderField: Codable, Sendable, Equatable {
    public let name: String
    public let value: String

    /// Bytes a name or a value may have at most.
    static let maxNameBytes = 256
    static let maxValueBytes = 16 << 10

    /// Headers the engine owns: a `Range` or an encoding of someone else's would break the
    /// resume rules; `Host` and the body's framing are libcurl's.
    private static let reserved: Set<String> = [
        "range", "if-range", "accept-encoding", "host", "content-length", "transfer-encoding", "connection",
        "te", "trailer", "upgrade", "expect", "proxy-connection",
    ]

    /// `Name: value`, checked.
    public init(line: String) throws(RequestContextError) {
        guard let colon = line.firstIndex(of: ":") else {
            // TRANSLATORS: keep --header and “Name: value” as they are.
            throw RequestContextError(tr("A --header needs the form “Name: value”, with a colon after the name."))
        }
        try self.init(name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                      value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    public init(name: String, value: String) throws(RequestContextError) {
        guard !name.isEmpty, name.utf8.count <= Self.maxNameBytes, name.utf8.allSatisfy(Self.isTokenByte) else {
            throw RequestContextError(tr("A header’s name may hold only letters, digits and - _ . ! # $ % & ' * + ^ ` | ~."))
        }
        guard value.utf8.count <= Self.maxValueBytes, Self.isSafeValue(value) else {
            throw RequestContextError(tr("A header’s value may not hold line breaks or other control characters, nor more than 16 KiB."))
        }
        guard !Self.reserved.contains(name.lowercased()) else {
            // TRANSLATORS: %1$@ is a header name such as Range.
            throw RequestContextError(String(format: tr("Fetchplay sets the %1$@ header itself; leave it out."), name))
        }
        self.name = name
        self.value = value
    }

    var line: String { "\(name): \(value)" }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }

    /// No control character but a tab: a CR or LF would end the header and start another.
    public static func isSafeValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    // Decoded values are checked again: a context file edited by hand is outside input too.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(name: container.decode(String.self, forKey: .name), value: container.decode(String.self, forKey: .value))
    }
}

/// Header values as the bytes they are on the wire.
///
/// HTTP header values are octets, not text. Fetchplay keeps each byte as the Unicode scalar of
/// the same number (ISO 8859-1 maps all 256 one-to-one), so a validator received with bytes that
/// are not UTF-8 goes back in `If-Range` exactly as it came, instead of each byte becoming
/// U+FFFD and the server answering 200.
enum HeaderBytes {
    /// Every byte as the scalar of the same number.
    static func latin1(_ bytes: UnsafeRawBufferPointer) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The bytes again; nil when `text` holds a scalar above U+00FF (it did not come from the wire).
    static func bytes(of text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    /// Whether a value may be placed in a request header: bytes only, none of them a control
    /// character (CR, LF, NUL, the other C0 codes and DEL; a tab is fine), and not empty.
    static func isSafeToSend(_ text: String) -> Bool {
        guard let bytes = bytes(of: text), !bytes.isEmpty else { return false }
        return bytes.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The value as text for people and parsers: UTF-8 where the bytes are UTF-8, else as is.
    static func displayText(_ text: String) -> String {
        guard let bytes = bytes(of: text) else { return text }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}

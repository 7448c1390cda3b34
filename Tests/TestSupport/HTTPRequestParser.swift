/// Splits a byte stream into HTTP/1.1 request heads.
///
/// Only what a download client sends is supported: a request line and header lines, with a body
/// only announced by `Content-Length` (skipped, never used). Anything else ends the connection.
struct HTTPRequestParser {
    /// The longest request head accepted. Bytes.
    static let maximumHeadSize = 64 * 1024

    private var buffer: [UInt8] = []
    private var bodyBytesToSkip = 0

    /// Adds bytes read from the socket.
    mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }

    /// Why `next` can give no request.
    enum Failure: Error { case needMoreBytes, malformed }

    /// The next complete request in the buffer.
    mutating func next(connection: Int) -> Result<RecordedRequest, Failure> {
        let skipped = min(bodyBytesToSkip, buffer.count)
        buffer.removeFirst(skipped)
        bodyBytesToSkip -= skipped
        if bodyBytesToSkip > 0 { return .failure(.needMoreBytes) }

        guard let end = Self.endOfHead(in: buffer) else {
            return .failure(buffer.count > Self.maximumHeadSize ? .malformed : .needMoreBytes)
        }
        let head = Array(buffer[..<end])
        buffer.removeFirst(end + 4)
        guard let request = Self.parse(head: head, connection: connection) else { return .failure(.malformed) }
        bodyBytesToSkip = Int(request["content-length"] ?? "") ?? 0
        return .success(request)
    }

    /// Parses a request head (without the blank line that ends it). Lines end at CRLF only, so
    /// a lone CR inside a value stays in it, where a test can see it; values keep their bytes.
    static func parse(head: [UInt8], connection: Int) -> RecordedRequest? {
        var lines = head.split(separator: [13, 10], omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        let requestLine = String(decoding: lines.removeFirst(), as: UTF8.self).split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        var headers: [HTTPHeader] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 0x3A) else { return nil }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            var value = line[(colon + 1)...]
            while value.first == 0x20 || value.first == 0x09 { value.removeFirst() }
            while value.last == 0x20 || value.last == 0x09 { value.removeLast() }
            headers.append(HTTPHeader(name, bytes: Array(value)))
        }
        return RecordedRequest(method: String(requestLine[0]), target: String(requestLine[1]),
                               version: String(requestLine[2]), headers: headers, connection: connection)
    }

    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

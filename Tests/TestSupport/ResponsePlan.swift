/// What `FaultServer` answers to one request: status, headers, the bytes of the body and how to
/// deliver them. Deciding (here, pure) is kept apart from sending (on the socket) so the HTTP
/// rules read in one place.
struct ResponsePlan: Sendable {
    var status: Int
    var headers: [HTTPHeader]
    /// The body bytes to send; empty for HEAD even when `Content-Length` announces more.
    var body: ArraySlice<UInt8>
    var chunked = false
    /// Bytes per second, or nil for as fast as the socket takes them.
    var throttle: Int?
    /// The first body bytes sent one by one, and how many a second.
    var trickle: (bytes: Int, perSecond: Int)?
    /// Body bytes after which the connection is closed.
    var dropAfter: Int?
    /// Body bytes after which nothing more is sent.
    var stallAfter: Int?
    /// Body bytes after which a chunk size that is not hexadecimal is sent (chunked only).
    var malformedChunkAfter: Int?
    /// Content the resource gets once this answer has ended.
    var contentChange: (body: [UInt8], etag: String?, lastModified: String?)?

    /// Whether the connection cannot carry another request after this answer.
    var endsConnection: Bool { dropAfter != nil || stallAfter != nil || malformedChunkAfter != nil }

    init(status: Int, headers: [HTTPHeader], body: ArraySlice<UInt8>) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A short text answer such as `404 Not Found`.
    static func text(status: Int) -> ResponsePlan {
        let body = Array("\(status) \(reasonPhrase(status))\n".utf8)
        return ResponsePlan(status: status,
                            headers: [HTTPHeader("Content-Type", "text/plain"),
                                      HTTPHeader("Content-Length", "\(body.count)")],
                            body: body[...])
    }

    /// The answer to `request` for `resource` (nil: not registered) with `faults` applied.
    static func make(for request: RecordedRequest, resource: ServedResource?, faults: [Fault]) -> ResponsePlan {
        guard let resource else { return .text(status: 404) }
        var plan: ResponsePlan
        if let status = faults.lazy.compactMap(\.errorStatus).first {
            plan = .text(status: status)
        } else if let (status, location) = faults.lazy.compactMap(\.redirection).first {
            plan = ResponsePlan(status: status,
                                headers: [HTTPHeader("Location", location), HTTPHeader("Content-Length", "0")],
                                body: [])
        } else {
            plan = content(for: request, resource: resource, faults: faults)
        }
        plan.headers += resource.headers + faults.compactMap(\.extraHeader)
        if request.method == "HEAD" {
            // Same head as GET, no body: not even the last chunk of a chunked one.
            plan.body = []
            plan.chunked = false
        }
        for fault in faults {
            switch fault {
            case .throttle(let rate): plan.throttle = max(1, rate)
            case .trickle(let bytes, let rate): plan.trickle = (max(0, bytes), max(1, rate))
            case .dropAfter(let bytes): plan.dropAfter = max(0, bytes)
            case .stallAfter(let bytes): plan.stallAfter = max(0, bytes)
            case .changeContent(let body, let etag, let lastModified): plan.contentChange = (body, etag, lastModified)
            case .malformedChunk(let bytes):
                plan.chunked = true
                plan.malformedChunkAfter = max(0, bytes)
                plan.headers.removeAll { $0.name == "Content-Length" }
                plan.headers.append(HTTPHeader("Transfer-Encoding", "chunked"))
            case .announcedLength(let value):
                plan.headers = plan.headers.map { $0.name == "Content-Length" ? HTTPHeader("Content-Length", value) : $0 }
            default: break
            }
        }
        return plan
    }

    /// 200, 206 or 416 for the resource's body, following `Range` and `If-Range`.
    private static func content(for request: RecordedRequest, resource: ServedResource,
                                faults: [Fault]) -> ResponsePlan {
        let body = resource.body
        let total = body.count
        var headers = [HTTPHeader("Content-Type", contentType(of: request.path)),
                       HTTPHeader("Accept-Ranges", "bytes")]
        if let bytes = resource.etagBytes {
            headers.append(HTTPHeader("ETag", bytes: bytes))
        } else if let etag = resource.etag {
            headers.append(HTTPHeader("ETag", etag))
        }
        if let date = resource.lastModified { headers.append(HTTPHeader("Last-Modified", date)) }

        if faults.contains(.chunked) {
            var plan = ResponsePlan(status: 200, headers: headers + [HTTPHeader("Transfer-Encoding", "chunked")],
                                    body: body[...])
            plan.chunked = true
            return plan
        }
        let honoursRange = !faults.contains(.ignoreRange)
            && (faults.contains(.ignoreIfRange) || ifRangeMatches(request.bytes(of: "if-range"), resource))
        guard honoursRange, let range = request["range"].flatMap({ ByteRange(header: $0, total: total) }) else {
            return ResponsePlan(status: 200, headers: headers + [HTTPHeader("Content-Length", "\(total)")],
                                body: body[...])
        }
        guard case .bytes(var low, var high) = range else {
            return ResponsePlan(status: 416, headers: headers + [HTTPHeader("Content-Range", "bytes */\(total)"),
                                                                  HTTPHeader("Content-Length", "0")],
                                body: [])
        }
        var announcedTotal = total
        for fault in faults {
            if case .wrongRangeStart(let shift) = fault {
                low = min(max(low + shift, 0), total - 1)
                high = max(low, high)
            }
            if case .wrongRangeTotal(let shift) = fault { announcedTotal = total + shift }
        }
        return ResponsePlan(status: 206,
                            headers: headers + [HTTPHeader("Content-Range", "bytes \(low)-\(high)/\(announcedTotal)"),
                                                HTTPHeader("Content-Length", "\(high - low + 1)")],
                            body: body[low...high])
    }

    /// If-Range holds when absent, or equal to a strong ETag or to Last-Modified (RFC 9110 13.1.5).
    /// Compared byte for byte, as the validator was sent.
    private static func ifRangeMatches(_ value: [UInt8]?, _ resource: ServedResource) -> Bool {
        guard let value else { return true }
        let etag = resource.etagBytes ?? resource.etag.map { Array($0.utf8) }
        if let etag, etag.first != UInt8(ascii: "W"), value == etag { return true }
        return value == resource.lastModified.map { Array($0.utf8) }
    }

    private static func contentType(of path: String) -> String {
        if path.hasSuffix(".webm") { return "video/webm" }
        if path.hasSuffix(".mp4") { return "video/mp4" }
        return "application/octet-stream"
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}

/// A single range from a `Range` header, resolved against the body length.
enum ByteRange: Equatable {
    /// Inclusive offsets inside the body.
    case bytes(Int, Int)
    case unsatisfiable

    /// Nil when the header should be ignored (not bytes, several ranges, malformed): the
    /// whole body is then sent with 200, as RFC 9110 allows.
    init?(header: String, total: Int) {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpaces(), last = spec[spec.index(after: dash)...].trimmingSpaces()
        if first.isEmpty {
            guard let suffix = Int(last), suffix >= 0 else { return nil }
            self = suffix == 0 || total == 0 ? .unsatisfiable : .bytes(max(0, total - suffix), total - 1)
            return
        }
        guard let low = Int(first), low >= 0 else { return nil }
        let high = last.isEmpty ? total - 1 : Int(last)
        guard let high, last.isEmpty || high >= low else { return nil }
        self = low >= total ? .unsatisfiable : .bytes(low, min(high, total - 1))
    }
}

extension Fault {
    var errorStatus: Int? {
        if case .status(let code) = self { code } else { nil }
    }

    var redirection: (Int, String)? {
        if case .redirect(let status, let location) = self { (status, location) } else { nil }
    }

    var extraHeader: HTTPHeader? {
        if case .header(let name, let value) = self { HTTPHeader(name, value) } else { nil }
    }
}

/// What `FaultServer` serves at one path: the content, its validators, and the faults still
/// to inject, consumed one request at a time.
struct ServedResource: Sendable {
    var body: [UInt8]
    var etag: String?
    /// An ETag given as raw bytes (not UTF-8, say), sent and compared exactly; wins over `etag`.
    var etagBytes: [UInt8]?
    var lastModified: String?
    /// Header lines added to every answer (e.g. `Content-Disposition`).
    var headers: [HTTPHeader]
    /// Fault sets in the order they apply; the first one with requests left is used.
    var stages: [Stage]

    struct Stage: Sendable {
        var faults: [Fault]
        /// Requests left for this stage; nil: every request from now on.
        var remaining: Int?
    }

    /// The faults for the next request, counting it against the current stage.
    mutating func takeFaults() -> [Fault] {
        while let stage = stages.first {
            guard let remaining = stage.remaining else { return stage.faults }
            if remaining > 0 {
                if remaining == 1 { stages.removeFirst() } else { stages[0].remaining = remaining - 1 }
                return stage.faults
            }
            stages.removeFirst()
        }
        return []
    }
}

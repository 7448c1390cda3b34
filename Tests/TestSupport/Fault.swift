/// A way `FaultServer` misbehaves while answering a request.
///
/// Faults are given to `FaultServer.serve(_:body:...)` for the first K requests of a path (or
/// all of them) and can be combined: `[.ignoreRange, .dropAfter(bytes: 1000)]`. A status or a
/// redirect replaces the answer; the range faults change which bytes are sent; the delivery
/// faults (`throttle`, `trickle`, `dropAfter`, `stallAfter`, `chunked`) change how the body is sent.
public enum Fault: Sendable, Equatable {
    /// Sends the body no faster than this. Bytes per second.
    case throttle(bytesPerSecond: Int)
    /// Sends the first `bytes` body bytes one at a time, `perSecond` of them a second, then the
    /// rest at full speed: a server slow to start.
    case trickle(bytes: Int, perSecond: Int)
    /// Closes the connection after this many body bytes (the headers still promise them all).
    case dropAfter(bytes: Int)
    /// Sends this many body bytes, then nothing, keeping the connection open until the client
    /// gives up or the server stops.
    case stallAfter(bytes: Int)
    /// Answers 200 with the whole body whatever `Range` asked for.
    case ignoreRange
    /// Honours `Range` but not `If-Range`: a changed file's bytes come back as a 206 from the
    /// old offset, with the new validators, as some caches do.
    case ignoreIfRange
    /// Answers a `Range` request with 206 for a start moved by `shift` bytes (clamped to the
    /// body), sending the bytes of that wrong start, as a misbehaving cache might.
    case wrongRangeStart(shift: Int)
    /// Answers a `Range` request with the right bytes but a `Content-Range` total off by `shift`.
    case wrongRangeTotal(shift: Int)
    /// This answer still carries the old content; every later request sees the new body and
    /// validators (changed before a byte is sent, so a fast retry cannot race it).
    case changeContent(body: [UInt8], etag: String?, lastModified: String? = nil)
    /// Answers `status` (301, 302, 303, 307, 308) with this `Location`, sent verbatim: a path on
    /// this server, `server.url("/other")`, or a forbidden scheme such as `file:///etc/passwd`.
    case redirect(status: Int, location: String)
    /// Sends the body with `Transfer-Encoding: chunked` and no `Content-Length`; `Range` is
    /// ignored (200), as streaming servers do. Serve without an ETag for a body with no validator.
    case chunked
    /// Answers this error status (404, 403, 500, 503...) with a short text body.
    case status(Int)
    /// Adds a header line to the answer (a second `Content-Length`, say).
    case header(name: String, value: String)
    /// Sends `Content-Length: value` instead of the body's real length (`"1000000000000000000"`).
    case announcedLength(String)
    /// Sends the body chunked, and after this many bytes a chunk size that is not hexadecimal.
    case malformedChunk(afterBytes: Int)

    /// `Content-Disposition: attachment; filename="<filename>"`, for hostile names such as
    /// `../../evil.webm`.
    public static func attachment(filename: String) -> Fault {
        .header(name: "Content-Disposition", value: "attachment; filename=\"\(filename)\"")
    }
}

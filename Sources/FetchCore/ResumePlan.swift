/// What a server's answer to a (possibly ranged) request means: the resume table of the design,
/// as one pure function so that every row can be tested on its own.
///
/// | answer to `Range: bytes=N-` + `If-Range`      | decision                        |
/// |-----------------------------------------------|---------------------------------|
/// | 206, start = N, total = stored total          | `.append`                       |
/// | 206 with another start or total               | `.restartFromZero`              |
/// | 200                                           | `.fresh` (old partial kept until passed) |
/// | 416, total = local size, validator matches    | `.complete`                     |
/// | 416 otherwise                                 | `.restartFromZero`              |
/// | 4xx / 5xx                                     | `.fail` (partial untouched)     |
enum ResumeDecision: Sendable, Equatable {
    /// Append the body at the requested offset.
    case append
    /// The body is the whole file from byte 0, with this identity.
    case fresh(total: Int64?, etag: String?, lastModified: String?)
    /// Do not write this body; ask again without `Range`.
    case restartFromZero(reason: String)
    /// The local bytes are already the whole file.
    case complete
    case fail(DownloadError)
}

enum ResumePlan {
    /// Decides what to do with `response`, the answer to a request from `offset` (0: no `Range`).
    static func decide(offset: Int64, record: DownloadRecord, response: ResponseHead) -> ResumeDecision {
        switch response.status {
        case 200:
            return .fresh(total: response.contentLength, etag: response.strongETag,
                          lastModified: response.lastModified)
        case 206:
            guard let range = response.contentRange, let start = range.start else {
                return offset == 0 ? .fail(.badResponse("a partial answer without Content-Range"))
                                   : .restartFromZero(reason: "206 without Content-Range")
            }
            if offset == 0 {
                // A range we did not ask for: usable only if it is the whole file from byte 0.
                guard start == 0, let total = range.total, let end = range.end, end + 1 == total else {
                    return .fail(.badResponse("a partial answer to a request for the whole file"))
                }
                return .fresh(total: total, etag: response.strongETag, lastModified: response.lastModified)
            }
            guard start == offset, let total = range.total, total == record.total else {
                return .restartFromZero(reason: "Content-Range \(response.headers["content-range"] ?? "") does not continue byte \(offset)")
            }
            return .append
        case 416:
            let sameValidator = (record.etag != nil && response.strongETag == record.etag)
                || (record.etag == nil && record.lastModified != nil && response.lastModified == record.lastModified)
            if offset > 0, let total = response.contentRange?.total, total == offset, total == record.total,
               sameValidator {
                return .complete
            }
            return offset == 0 ? .fail(.httpStatus(code: 416, reason: response.reasonPhrase))
                               : .restartFromZero(reason: "416 does not prove the file is complete")
        case 400...599:
            return .fail(.httpStatus(code: response.status, reason: response.reasonPhrase))
        default:
            return .fail(.badResponse("the status \(response.status) \(response.reason)"))
        }
    }
}

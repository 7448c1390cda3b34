import Foundation
import Localization

/// What a server's answer to a (possibly ranged) request means: the resume table of the design,
/// as one pure function so that every row can be tested on its own.
///
/// | answer to `Range: bytes=N-` + `If-Range`      | decision                        |
/// |-----------------------------------------------|---------------------------------|
/// | any 200 / 206 that breaks the protocol (two    | `.fail` (never retried)         |
/// |   lengths) or is encoded (gzip)               |                                 |
/// | 206, start = N, total = stored total, same    | `.append`                       |
/// |   validator                                   |                                 |
/// | 206 with another start or total               | `.restartFromZero`              |
/// | 206 whose validator differs or is missing     | `.restartFromZero` (the server  |
/// |                                               |   ignored `If-Range`)           |
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
    /// An extra connection's answer cannot fill its slice; go on with fewer connections.
    case sliceRefused(reason: String)
    case fail(DownloadError)
}

enum ResumePlan {
    /// Decides what to do with `response`, the answer to a request from `offset` (0: no `Range`).
    static func decide(offset: Int64, record: DownloadRecord, response: ResponseHead) -> ResumeDecision {
        if (200...299).contains(response.status), let violation = response.violation {
            return .fail(.badResponse(violation))
        }
        switch response.status {
        case 200:
            return .fresh(total: response.contentLength, etag: response.strongETag,
                          lastModified: response.lastModified)
        case 206:
            guard let range = response.contentRange, let start = range.start else {
                return offset == 0 ? .fail(.badResponse(tr("a partial answer without Content-Range")))
                                   : .restartFromZero(reason: "206 without Content-Range")
            }
            if offset == 0 {
                // A range we did not ask for: usable only if it is the whole file from byte 0.
                guard start == 0, let total = range.total, let end = range.end, end + 1 == total else {
                    return .fail(.badResponse(tr("a partial answer to a request for the whole file")))
                }
                return .fresh(total: total, etag: response.strongETag, lastModified: response.lastModified)
            }
            guard start == offset, let total = range.total, total == record.total else {
                return .restartFromZero(reason: "Content-Range \(response["content-range"] ?? "") does not continue byte \(offset)")
            }
            // A server that ignores If-Range sends the new file's bytes from the old offset.
            guard hasSameValidator(record, response) else {
                return .restartFromZero(reason: "the 206 answer does not carry the recorded validator \(record.validator ?? "")")
            }
            return .append
        case 416:
            if offset > 0, let total = response.contentRange?.total, total == offset, total == record.total,
               hasSameValidator(record, response) {
                return .complete
            }
            return offset == 0 ? .fail(.httpStatus(code: 416, reason: response.reasonPhrase))
                               : .restartFromZero(reason: "416 does not prove the file is complete")
        case 400...599:
            return .fail(.httpStatus(code: response.status, reason: response.reasonPhrase))
        default:
            return .fail(.badResponse(String(format: tr("the status %1$ld %2$@"), response.status, response.reason)))
        }
    }

    /// Decides what to do with the answer to an extra connection's `Range: bytes=start-…` of
    /// the file `record` describes. Only an aligned 206 of the same version is written:
    ///
    /// | answer                                             | decision                      |
    /// |----------------------------------------------------|-------------------------------|
    /// | a protocol violation (two lengths, gzip)           | `.fail`                       |
    /// | 200 or 206 of another version (validator differs)  | `.restartFromZero` (changed)  |
    /// | 206 from `start`, the recorded total, same version | `.append`                     |
    /// | anything else (200, 206 elsewhere, 406, 416, 5xx)  | `.sliceRefused`               |
    static func decideSlice(start: Int64, record: DownloadRecord, response: ResponseHead) -> ResumeDecision {
        if (200...299).contains(response.status), let violation = response.violation {
            return .fail(.badResponse(violation))
        }
        let changed = (response.status == 200 || response.status == 206) && !hasSameValidator(record, response)
        if changed {
            return .restartFromZero(reason: "an extra connection found another version of the file")
        }
        guard response.status == 206 else {
            return .sliceRefused(reason: "the server answered \(response.status) to a request for a range")
        }
        guard let range = response.contentRange, range.start == start, range.total == record.total else {
            return .sliceRefused(reason: "Content-Range \(response["content-range"] ?? "") does not continue byte \(start)")
        }
        return .append
    }

    /// The answer names the same version of the file as the record: the same strong ETag when
    /// one was recorded, else the same Last-Modified. No recorded validator: never the same.
    private static func hasSameValidator(_ record: DownloadRecord, _ response: ResponseHead) -> Bool {
        if let etag = record.etag { return response.strongETag == etag }
        if let date = record.lastModified { return response.lastModified == date }
        return false
    }
}

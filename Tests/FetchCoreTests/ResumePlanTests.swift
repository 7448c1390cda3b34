@testable import FetchCore
import Testing

/// Every row of the resume table in DESIGN.md, as one parameterised test.
struct ResumePlanTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let offset: Int64
        let status: Int
        let headers: [String: String]
        let expected: ResumeDecision
        var testDescription: String { name }
    }

    static let etag = "\"v1\""

    static let rows: [Row] = [
        Row(name: "206 continuing the partial appends", offset: 400, status: 206,
            headers: ["Content-Range": "bytes 400-999/1000", "ETag": etag], expected: .append),
        Row(name: "206 at another start starts over", offset: 400, status: 206,
            headers: ["Content-Range": "bytes 0-999/1000"],
            expected: .restartFromZero(reason: "Content-Range bytes 0-999/1000 does not continue byte 400")),
        Row(name: "206 with another total starts over", offset: 400, status: 206,
            headers: ["Content-Range": "bytes 400-1999/2000"],
            expected: .restartFromZero(reason: "Content-Range bytes 400-1999/2000 does not continue byte 400")),
        Row(name: "206 without Content-Range starts over", offset: 400, status: 206, headers: [:],
            expected: .restartFromZero(reason: "206 without Content-Range")),
        Row(name: "200 to a ranged request is the whole file again", offset: 400, status: 200,
            headers: ["Content-Length": "1200", "ETag": "\"v2\""],
            expected: .fresh(total: 1200, etag: "\"v2\"", lastModified: nil)),
        Row(name: "200 with a weak ETag keeps only Last-Modified", offset: 0, status: 200,
            headers: ["Content-Length": "10", "ETag": "W/\"w\"", "Last-Modified": "Sun, 01 Nov 2026 10:00:00 GMT"],
            expected: .fresh(total: 10, etag: nil, lastModified: "Sun, 01 Nov 2026 10:00:00 GMT")),
        Row(name: "chunked 200 has no length", offset: 0, status: 200,
            headers: ["Transfer-Encoding": "chunked", "Content-Length": "99"],
            expected: .fresh(total: nil, etag: nil, lastModified: nil)),
        Row(name: "416 with the same total and validator is complete", offset: 1000, status: 416,
            headers: ["Content-Range": "bytes */1000", "ETag": etag], expected: .complete),
        Row(name: "416 with another total starts over", offset: 1000, status: 416,
            headers: ["Content-Range": "bytes */900", "ETag": etag],
            expected: .restartFromZero(reason: "416 does not prove the file is complete")),
        Row(name: "416 with another validator starts over", offset: 1000, status: 416,
            headers: ["Content-Range": "bytes */1000", "ETag": "\"v2\""],
            expected: .restartFromZero(reason: "416 does not prove the file is complete")),
        Row(name: "404 is an error naming the status", offset: 400, status: 404, headers: [:],
            expected: .fail(.httpStatus(code: 404, reason: "Not Found"))),
        Row(name: "503 is an error naming the status", offset: 0, status: 503, headers: [:],
            expected: .fail(.httpStatus(code: 503, reason: "Service Unavailable"))),
        Row(name: "206 to an unranged request for the whole file is fresh", offset: 0, status: 206,
            headers: ["Content-Range": "bytes 0-9/10", "ETag": etag],
            expected: .fresh(total: 10, etag: etag, lastModified: nil)),
        Row(name: "206 with a hostile Content-Range is refused", offset: 0, status: 206,
            headers: ["Content-Range": "bytes 0-0/-9223372036854775808"],
            expected: .fail(.badResponse("a partial answer without Content-Range"))),
        Row(name: "206 to an unranged request for a part is refused", offset: 0, status: 206,
            headers: ["Content-Range": "bytes 5-9/10"],
            expected: .fail(.badResponse("a partial answer to a request for the whole file"))),
    ]

    @Test(arguments: rows)
    func decision(_ row: Row) {
        var record = DownloadRecord(url: "http://example.test/v.webm", displayName: "v.webm")
        record.total = 1000
        record.etag = Self.etag
        record.durableBytes = row.offset
        let response = ResponseHead(status: row.status, headers: row.headers)
        #expect(ResumePlan.decide(offset: row.offset, record: record, response: response) == row.expected)
    }

    @Test func contentRangeParsing() {
        #expect(ContentRange("bytes 10-19/20") == ContentRange(start: 10, end: 19, total: 20))
        #expect(ContentRange("bytes */20") == ContentRange(start: nil, end: nil, total: 20))
        #expect(ContentRange("bytes 10-19/*") == ContentRange(start: 10, end: 19, total: nil))
        #expect(ContentRange("items 1-2/3") == nil)
        // Hostile numbers are not ranges.
        #expect(ContentRange("bytes 0-0/-9223372036854775808") == nil)
        #expect(ContentRange("bytes -5-3/10") == nil)
        #expect(ContentRange("bytes 7-3/10") == nil)
        #expect(ContentRange("bytes 0-10/10") == nil)
        #expect(ContentRange("bytes 0-9223372036854775807/9223372036854775807") == nil)
    }

    @Test func hostileSuggestedNamesLoseTheirFolders() {
        let response = ResponseHead(status: 200, headers: ["Content-Disposition": "attachment; filename=\"../../evil.webm\""])
        #expect(response.suggestedName == "evil.webm")
        #expect(DisplayName.sanitize("..") == nil)
        #expect(DisplayName.sanitize("a\u{0}b/.hidden") == "hidden")
        // Stripped until stable: never a hidden `.x` left behind a blank.
        #expect(DisplayName.sanitize(". .x") == "x")
        #expect(DisplayName.sanitize("clip\u{202E}4pm.exe") == "clip4pm.exe")
    }
}

// The response head: status line, headers, Content-Length, validators, Content-Range and
// Content-Disposition, as libcurl's header callback hands them over (one line at a time).
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var head = ResponseHead()
    for line in UnsafeRawBufferPointer(start: data, count: count).split(separator: 10, omittingEmptySubsequences: false) {
        (Array(line) + [10]).withUnsafeBytes { head.consume(line: $0) }
    }
    _ = head.contentLength
    _ = head.violation
    _ = head.strongETag
    _ = head.lastModified
    _ = head.contentRange
    _ = head.reasonPhrase
    _ = head.suggestedName
    _ = head["content-type"]
    return 0
}

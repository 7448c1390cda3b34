// The media sniffer: is a body a video or a document? The first byte picks the Content-Type the
// server claims (none, a wrong one, a right one), the rest is the body's start.
@testable import FetchCore

private let labels: [String?] = [nil, "text/plain", "application/octet-stream", "text/html; charset=utf-8",
                                 "application/json", "video/mp4", "application/vnd.apple.mpegurl",
                                 "application/dash+xml", "", ";;"]

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let label = bytes.first.map { labels[Int($0) % labels.count] } ?? nil
    _ = MediaSniffer.document(contentType: label, firstBytes: UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
    return 0
}

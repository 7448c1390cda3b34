// A web page read for its videos: libxml2's HTML parser, the scanner's JSON-LD, script-link and
// title readers, and a `Set-Cookie` line taken from the input's first line.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    let scan = PageScanner.scan(HTMLPage(bytes, charset: nil), page: "https://www.example.com/a/page.html?x=1")
    precondition(scan.videos.count <= PageScanner.videoLimit && scan.frames.count <= PageScanner.frameLimit)
    for video in scan.videos { precondition(video.url.hasPrefix("http://") || video.url.hasPrefix("https://")) }
    let firstLine = bytes.prefix { $0 != 10 }
    _ = Cookie(setCookie: String(decoding: firstLine, as: UTF8.self), from: "https://www.example.com/a/page.html")
    return 0
}

// A web page read for its videos: libxml2's HTML parser, the scanner's JSON-LD, script-link and
// title readers, and a `Set-Cookie` line taken from the input's first line.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    let scan = PageScanner.scan(HTMLPage(bytes, charset: nil), page: "https://www.example.com/a/page.html?x=1")
    precondition(scan.videos.count <= PageScanner.videoLimit && scan.frames.count <= PageScanner.frameLimit)
    // Bytes, not characters: a host may start with a combining mark (IDN bytes pass the spelling
    // check), which `hasPrefix` reads as part of the last "/" (the fuzzer found it).
    for video in scan.videos {
        precondition(video.url.utf8.starts(with: "http://".utf8) || video.url.utf8.starts(with: "https://".utf8))
    }
    let firstLine = bytes.prefix { $0 != 10 }
    _ = Cookie(setCookie: String(decoding: firstLine, as: UTF8.self), from: "https://www.example.com/a/page.html")
    return 0
}

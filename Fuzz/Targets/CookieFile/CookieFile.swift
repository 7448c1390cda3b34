// The Netscape cookie-file reader (`--cookies FILE`), and the cookies it returns matched to a link.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Data(UnsafeRawBufferPointer(start: data, count: count))
    guard let cookies = try? CookieFile.parse(bytes, name: "fuzz", now: Date(timeIntervalSince1970: 1_700_000_000)) else { return 0 }
    var context = RequestContext()
    context.cookies = cookies
    _ = context.fields(for: "https://www.example.com/a/b?c", origin: "https://example.com/")
    return 0
}

// The native host's message validator: what the browser extension sends, checked, then what the
// window reads back from the session bus (the same function on its re-encoded form).
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Data(UnsafeRawBufferPointer(start: data, count: count))
    guard let message = try? BrowserMessage.parse(bytes) else { return 0 }
    // What the host forwards, the window must take, and read as the same message.
    guard (try? BrowserMessage.parse(message.encoded)) == message else {
        fatalError("a checked message did not survive its own encoding")
    }
    if case .download(let url, let context) = message { _ = context.fields(for: url, origin: url); _ = context.summary }
    return 0
}

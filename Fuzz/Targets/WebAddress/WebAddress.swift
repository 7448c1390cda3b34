// What a person types or pastes as a link (and what a server names as the next one): the check,
// the normal form (RFC 3986 §6), the identity without a password, the scheme a browser would
// add, and the local paths that are no link.
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    if let link = try? WebAddress.validate(text) {
        // The normal form is a fixed point: a record's link, checked again, names the same video.
        guard (try? WebAddress.validate(link)) == link else { fatalError("a normalised link changed when normalised again") }
    }
    _ = try? WebAddress.identity(text)
    _ = WebAddress.redacted(text)
    _ = WebAddress.lastPathSegment(of: text)
    _ = URLParts.normalizedEncoding(text)
    _ = DisplayName.fromURL(text)
    return 0
}

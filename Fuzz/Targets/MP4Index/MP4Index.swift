// The MP4 index reader: where `moov` starts, from a file's first boxes. The first 8 bytes are the
// file's total length (as a server's Content-Length would say), the rest its head.
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let total = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    _ = MP4Index.tailIndexOffset(head: Array(bytes.dropFirst(8)), total: total)
    return 0
}

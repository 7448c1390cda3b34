// The record readers: the JSON kept beside every partial and video, and what is computed from it
// before a download continues (its ranges, holes, validator); an HLS presentation's record.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Data(UnsafeRawBufferPointer(start: data, count: count))
    // A presentation's record: this version's format, else an earlier one's.
    _ = PresentationFolder.decode(bytes)?.presentation?.tracks
    guard let record = try? DownloadRecord.decoded(from: bytes) else { return 0 }
    _ = record.validator
    _ = record.isResumable
    let durable = record.durable
    _ = durable.count
    _ = durable.prefixLength
    if let total = record.total {
        _ = durable.covers(total: total)
        _ = durable.gaps(upTo: total)
        _ = durable.clamped(to: total)
    }
    _ = Cache.key(for: record.url)
    return 0
}

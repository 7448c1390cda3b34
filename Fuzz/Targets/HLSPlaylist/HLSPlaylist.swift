// The HLS playlist parser (master and media playlists, keys, byte ranges, maps, attributes),
// over any bytes a server sends as a playlist.
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    _ = try? HLSPlaylistParser.parse(text, base: "https://example.org/video/index.m3u8?token=1")
    return 0
}

// The DASH manifest parser (libxml2's reader, inheritance, BaseURLs, durations, doubles,
// properties) and what is made from a manifest (templates and timelines expanded, segment lists,
// each piece's other places, subtitle files, the tracks the record keeps as JSON and reads back),
// over any bytes a server sends as a manifest; the same bytes as a sidx too, and as values.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let base = "https://example.org/show/manifest.mpd?token=1"
    // As a sidx at some offset of an on-demand file.
    let onDemand = DASHRepresentation(id: "v", bandwidth: 1, codecs: [], baseURL: "https://example.org/v.mp4",
                                      segments: .base(DASHBase(indexRange: DASHRange(first: 800, last: 800 + Int64(max(0, count - 1))))))
    if let track = try? DASHSegmentTemplate.track(of: onDemand, index: bytes) {
        precondition(!track.segments.isEmpty && track.segments.allSatisfy { $0.range.map { $0.offset >= 800 + Int64(count) } ?? false })
    }
    let text = String(decoding: bytes.prefix(64), as: UTF8.self)
    if let seconds = DASHValue.duration(text) { precondition(seconds >= 0 && seconds < 1e9) }
    if let value = DASHValue.double(text) { precondition(value.isFinite) }
    _ = DASHValue.whole(text)
    guard let manifest = try? DASHManifestParser.parse(bytes, base: base) else { return 0 }
    for period in manifest.periods {
        for set in period.adaptationSets {
            for representation in set.representations {
                guard let track = try? DASHSegmentTemplate.track(of: representation, periodDuration: period.duration),
                      !track.segments.isEmpty else { continue }
                precondition(track.segments.count <= DASHSegmentTemplate.segmentLimit)
                // What the record keeps must read back as the same track.
                let part = PresentationPart(mediaURL: base, tracks: [track])
                let read = try? JSONDecoder().decode(PresentationPart.self, from: JSONEncoder().encode(part))
                precondition(read == part, "the track made from a manifest does not read back")
                // Every other place of a piece is an http(s) link too.
                let mirrors = PieceMirrors([track])
                for segment in track.segments.prefix(100) {
                    precondition(mirrors.links(for: segment.url).allSatisfy { $0.hasPrefix("http://") || $0.hasPrefix("https://") })
                }
            }
        }
    }
    if let choice = try? DASHChoice.choose(manifest, languages: ["en"]) {
        precondition(choice.subtitles.allSatisfy { $0.language == StreamSubtitle.tag($0.language) && ["vtt", "ttml"].contains($0.format) })
    }
    _ = DASHChoice.variants(manifest, url: base, languages: ["en"])
    return 0
}

/// A Representation's segments, Period after Period, written as the HLS media playlist the
/// saver takes (RFC 8216: `EXT-X-MAP` for its init section, `EXT-X-BYTERANGE` for a range of a
/// file, absolute links). Kept in the presentation's record in place of an HLS playlist, it
/// makes a resume use the same segment list without reading the manifest again.
enum DASHPlaylist {
    /// Where a Period starts (seconds), before its first segment, when there are several: the
    /// feed then moves its fragments' decode times to go on from there.
    static let periodTag = "#FETCHPLAY-PERIOD-START"

    /// - Parameter starts: each track's Period start in seconds; nil: one after the other.
    static func text(_ tracks: [DASHTrack], starts: [Double]? = nil) -> String {
        let longest = tracks.flatMap(\.segments).map(\.duration).max() ?? 1
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(Int(longest.rounded(.up)))",
                     "#EXT-X-PLAYLIST-TYPE:VOD"]
        var start = 0.0
        for (index, track) in tracks.enumerated() {
            if tracks.count > 1 {
                if let starts, index < starts.count { start = max(start, starts[index]) }
                lines.append("\(periodTag):\(start)")
                start += track.segments.reduce(0) { $0 + $1.duration }
            }
            if let initialization = track.initialization, let url = initialization.url {
                var map = "#EXT-X-MAP:URI=\"\(escaped(url))\""
                if let range = initialization.range { map += ",BYTERANGE=\"\(range.length)@\(range.first)\"" }
                lines.append(map)
            }
            for segment in track.segments {
                lines.append("#EXTINF:\(segment.duration),")
                if let range = segment.range { lines.append("#EXT-X-BYTERANGE:\(range.length)@\(range.first)") }
                lines.append(escaped(segment.url))
            }
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A link as one playlist line or quoted attribute: the bytes that would end either
    /// (quotes, line ends, blanks at its ends) percent-encoded, as they would be in a URL.
    private static func escaped(_ url: String) -> String {
        var result = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\n": result += "%0A"
            case "\r": result += "%0D"
            case " ": result += "%20"
            case "\t": result += "%09"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

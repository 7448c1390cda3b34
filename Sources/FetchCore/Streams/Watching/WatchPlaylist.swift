import Foundation

/// The HLS playlists a player is given to watch a presentation while it downloads
/// (`WatchServer`): written from the stream model, whatever the link was (HLS or DASH), and
/// naming the server's own paths, so every byte the player reads comes from the segment store.
///
/// ```
/// master.m3u8     one variant: track 0, with the other tracks as its audio renditions
/// t0.m3u8         track 0's segments (VOD, ended): EXT-X-MAP for each init section, no keys
/// t0/i0.mp4       track 0's first init section, in the clear
/// t0/s12.m4s      track 0's thirteenth segment, in the clear
/// ```
/// The player reads them with GStreamer's own HLS demuxer, which seeks by segment durations,
/// keeps audio and video in step and picks renditions: nothing of that is written here.
enum WatchPlaylist {
    /// The variant and its renditions. `bandwidth` is only a figure HLS asks for: with one
    /// variant there is nothing to choose.
    static func master(trackCount: Int) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let audio = trackCount > 1
        for index in 1..<max(1, trackCount) {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio \(index)\",DEFAULT=\(index == 1 ? "YES" : "NO"),"
                         + "AUTOSELECT=YES,URI=\"t\(index).m3u8\"")
        }
        lines.append("#EXT-X-STREAM-INF:BANDWIDTH=1000000" + (audio ? ",AUDIO=\"audio\"" : ""))
        lines.append("t0.m3u8")
        return lines.joined(separator: "\n") + "\n"
    }

    /// One track's media playlist. A new DASH Period is a discontinuity: its fragments' times
    /// start over.
    static func media(_ track: StreamTrack, index: Int) -> String {
        let longest = track.segments.map(\.duration).max() ?? 1
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, Int(longest.rounded(.up))))",
                     "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"]
        var section: Int?
        var period: Double?
        for (number, segment) in track.segments.enumerated() {
            if number > 0, segment.periodStart != period { lines.append("#EXT-X-DISCONTINUITY") }
            period = segment.periodStart
            if let current = segment.section, current != section {
                lines.append("#EXT-X-MAP:URI=\"t\(index)/i\(current).\(extensionOf(track.sections[current].url, initSection: true))\"")
                section = current
            }
            lines.append("#EXTINF:\(String(format: "%.6f", segment.duration)),")
            lines.append("t\(index)/s\(number).\(extensionOf(segment.url, initSection: false, fragmented: segment.section != nil))")
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The extension the served path ends with: the link's own when it is a known media type
    /// (packed audio must keep its `.aac`), else what the segment is.
    static func extensionOf(_ url: String, initSection: Bool, fragmented: Bool = true) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let ext = (path as NSString).pathExtension.lowercased()
        if known.contains(ext) { return ext }
        return initSection ? "mp4" : fragmented ? "m4s" : "ts"
    }

    private static let known: Set<String> = ["ts", "aac", "ac3", "ec3", "mp3", "m4s", "mp4", "m4a", "m4v", "cmfv", "cmfa", "webm"]

    /// What the server's path names: a playlist, or a track's init section or segment.
    enum Resource: Equatable {
        case master
        case playlist(track: Int)
        case initSection(track: Int, index: Int)
        case segment(track: Int, index: Int)

        /// Reads the path after the server's token ("t0/s12.m4s"); nil for anything else.
        init?(path: Substring) {
            if path == "master.m3u8" { self = .master; return }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            func number(_ text: Substring, after prefix: Character) -> Int? {
                guard text.first == prefix, text.count <= 8 else { return nil }
                return Int(text.dropFirst())
            }
            if parts.count == 1, parts[0].hasSuffix(".m3u8"), let track = number(parts[0].dropLast(5), after: "t") {
                self = .playlist(track: track)
                return
            }
            guard parts.count == 2, let track = number(parts[0], after: "t"), let dot = parts[1].firstIndex(of: ".") else { return nil }
            let name = parts[1][..<dot]
            if let index = number(name, after: "i") {
                self = .initSection(track: track, index: index)
            } else if let index = number(name, after: "s") {
                self = .segment(track: track, index: index)
            } else {
                return nil
            }
        }
    }
}

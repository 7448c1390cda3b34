import Foundation

/// What a test holds back of an HLS or DASH presentation's media on its server to show that a
/// player starts with the init sections and one segment per track: every segment after each
/// stream's first (`FaultServer.hold`).
public enum HeldSegments {
    /// Whether a file is media (not a playlist, a manifest or a key).
    public static func isMedia(_ path: String) -> Bool {
        !path.hasSuffix(".m3u8") && !path.hasSuffix(".mpd") && !path.hasSuffix(".bin")
    }

    /// What to hold back of each media file: in a file of many fragments, everything from its
    /// second fragment on (which starts at its sidx when it has one, a SegmentList's, else at its
    /// moof); of files of one fragment each, every file after a stream's first (files named alike
    /// but for their numbers are one stream). Init sections are never held.
    public static func heldBack(_ media: [String: [UInt8]]) -> [(String, Range<Int>)] {
        let whole = media.keys.compactMap { path -> (String, Range<Int>)? in
            let moofs = topLevelBoxes(media[path]!, named: "moof")
            guard moofs.count > 1 else { return nil }
            let start = topLevelBoxes(media[path]!, named: "sidx").filter { $0 > moofs[0] && $0 < moofs[1] }.min() ?? moofs[1]
            return (path, start..<media[path]!.count)
        }
        // "chunk-stream1-00002.m4s" is of stream "chunk-stream1-": its last number dropped.
        let segments = media.keys.filter { path in !path.contains("init") && !whole.contains { $0.0 == path } }
        let streams = Dictionary(grouping: segments) { path -> String in
            let name = (path as NSString).deletingPathExtension
            guard let last = name.lastIndex(where: \.isNumber) else { return name }
            let first = name[..<last].lastIndex { !$0.isNumber }.map(name.index(after:)) ?? name.startIndex
            return String(name[..<first] + name[name.index(after: last)...])
        }
        return whole + streams.values.flatMap { names in names.sorted().dropFirst().map { ($0, 0..<media[$0]!.count) } }
    }

    /// Where the top-level boxes called `name` start.
    public static func topLevelBoxes(_ bytes: [UInt8], named name: String) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == name { offsets.append(offset) }
            guard size >= 8 else { break }
            offset += size
        }
        return offsets
    }
}

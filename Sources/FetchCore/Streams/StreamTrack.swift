/// One track of a presentation as HLS and DASH both come to it: its init sections and its media
/// segments in playing order. An HLS media playlist is read into one (`HLSPlaylistParser`); a
/// DASH Representation's Periods become one (`DASHSegmentTemplate`, `DASHSource`). The record
/// keeps it as JSON, so a resume fetches the same segments without reading the link again.
public struct StreamTrack: Codable, Sendable, Equatable {
    /// The init sections its segments name (`EXT-X-MAP`; a Representation's `Initialization`),
    /// each once.
    public var sections: [InitSection] = []
    public var segments: [StreamSegment]
    /// Where else its pieces are (a DASH Representation's other BaseURLs), as a few rules for
    /// the start of their links rather than a list per segment; nil: nowhere else.
    public var mirrors: [StreamMirror]?

    public init(sections: [InitSection] = [], segments: [StreamSegment], mirrors: [StreamMirror] = []) {
        self.sections = sections
        self.segments = segments
        self.mirrors = mirrors.isEmpty ? nil : mirrors
    }

    /// Seconds of media in all its segments.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// The init section that goes before `segment`.
    public func section(of segment: StreamSegment) -> InitSection? { segment.section.map { sections[$0] } }

    /// Its segments with `section` (nil: none) as their init section, which is added once.
    mutating func append(_ segment: StreamSegment, section: InitSection?) {
        var segment = segment
        if let section {
            if sections.last != section { sections.append(section) }
            segment.section = sections.count - 1
        }
        segments.append(segment)
    }

    /// Whether every `section` index points into `sections`: a record read back is checked.
    var isConsistent: Bool { segments.allSatisfy { $0.section.map { sections.indices.contains($0) } ?? true } }
}

/// A subtitle or caption file saved beside the video ("Name.en.vtt"): a DASH text
/// Representation that is one file.
public struct StreamSubtitle: Codable, Sendable, Equatable {
    public var url: String
    /// Its language tag (RFC 5646, letters, digits and "-" only), which goes into the file's name.
    public var language: String?
    /// "vtt" or "ttml": the file's extension.
    public var format: String
    /// The same file at other places (more BaseURLs); nil: none.
    public var mirrors: [String]?

    public init(url: String, language: String?, format: String, mirrors: [String] = []) {
        self.url = url
        self.language = language
        self.format = format
        self.mirrors = mirrors.isEmpty ? nil : mirrors
    }

    /// Whether `body` reads as a file of `format`: WebVTT's "WEBVTT" first line, or a TTML
    /// document (XML whose root is `tt`), after an optional byte order mark.
    static func holds(_ format: String, _ body: [UInt8]) -> Bool {
        let bytes = body.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(body.dropFirst(3)) : body
        if format == "vtt" {
            return bytes.starts(with: Array("WEBVTT".utf8)) && (bytes.count == 6 || [0x20, 0x09, 0x0A, 0x0D].contains(bytes[6]))
        }
        // The first element after the XML declaration, comments and white space: `tt`, maybe
        // with a prefix.
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("?") || rest.hasPrefix("!") { continue }
            let name = rest.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
            return name == "tt" || name.hasSuffix(":tt")
        }
        return false
    }

    /// `text` as a language tag fit for a file's name; nil when it is none.
    static func tag(_ text: String?) -> String? {
        guard let text, (1...35).contains(text.utf8.count),
              text.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || $0 == UInt8(ascii: "-")) }),
              text.first != "-" else { return nil }
        return text
    }
}

/// The same resource at another place: a link starting with `from` is also at `to` followed by
/// the rest of it (`from` ends with "/"), or a link equal to `from` is also `to`.
public struct StreamMirror: Codable, Sendable, Equatable {
    public var from: String
    public var to: String

    /// Rules a track keeps at most: the same content on a few hosts makes one or two each.
    static let limit = 64

    /// `url`'s link at this other place; nil when the rule is not for it.
    func link(for url: String) -> String? {
        if url == from { return to }
        guard from.hasSuffix("/"), url.hasPrefix(from) else { return nil }
        return to + url.dropFirst(from.count)
    }

    /// Adds to `mirrors` the rule by which `url` is also at `other` (unless one of them says so
    /// already): the two links with the longest tail they share after a "/" past their hosts
    /// cut off, so the rule holds for the track's other links beside it.
    static func note(_ url: String, at other: String, in mirrors: inout [StreamMirror]) {
        guard url != other, !mirrors.contains(where: { $0.link(for: url) == other }), mirrors.count < limit else { return }
        let a = Array(url.utf8), b = Array(other.utf8)
        var shared = 0
        while shared < min(a.count, b.count), a[a.count - 1 - shared] == b[b.count - 1 - shared] { shared += 1 }
        // Where each link's path begins: a cut never falls inside a scheme or a host.
        func pathStart(_ bytes: [UInt8]) -> Int {
            let slash = UInt8(ascii: "/")
            var index = 0
            if let scheme = bytes.indices.dropLast(2).first(where: { bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == slash && bytes[$0 + 2] == slash }) {
                index = scheme + 3
            }
            return bytes[index...].firstIndex(of: slash).map { $0 + 1 } ?? bytes.count
        }
        let earliest = max(a.count - pathStart(a), 0)
        // The longest shared tail that starts just after a "/" in both, past their paths' start.
        var kept = 0
        let slash = UInt8(ascii: "/")
        for length in stride(from: min(shared, earliest), through: 1, by: -1)
        where a[a.count - length - 1] == slash && b[b.count - length - 1] == slash {
            if b.count - length >= pathStart(b) {
                kept = length
                break
            }
        }
        let rule = StreamMirror(from: String(decoding: a.dropLast(kept), as: UTF8.self), to: String(decoding: b.dropLast(kept), as: UTF8.self))
        mirrors.append(rule)
    }
}

/// One media segment: a resource, maybe a byte range of it, how long it plays, and what it
/// needs before it can be read (its key, its init section).
public struct StreamSegment: Codable, Sendable, Equatable {
    public var url: String
    /// Part of the resource at `url` only; nil: all of it.
    public var range: ByteSpan?
    /// Seconds.
    public var duration: Double
    /// The key it is encrypted with (HLS `EXT-X-KEY` METHOD=AES-128); nil: in the clear.
    public var key: SegmentKey?
    /// Its init section's place in the track's `sections`; nil: self-initialising (MPEG-TS).
    public var section: Int?
    /// Where its DASH Period starts, in seconds, in a presentation of several Periods: its
    /// fragments' decode times are moved to go on from there. Nil: as they are.
    public var periodStart: Double?

    public init(url: String, range: ByteSpan? = nil, duration: Double, key: SegmentKey? = nil, periodStart: Double? = nil) {
        self.url = url
        self.range = range
        self.duration = duration
        self.key = key
        self.periodStart = periodStart
    }
}

/// `length` bytes from `offset` within a resource.
public struct ByteSpan: Codable, Sendable, Hashable {
    public var offset: Int64
    public var length: Int64

    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }

    /// One past its last byte.
    public var end: Int64 { offset + length }
}

/// An AES-128-CBC key and its initialisation vector.
public struct SegmentKey: Codable, Sendable, Equatable {
    public var url: String
    /// 16 bytes: HLS's `IV` attribute, or the segment's media sequence number big-endian.
    public var iv: [UInt8]
}

/// A media initialisation section: fragmented MP4's `ftyp` and `moov` (or MPEG-TS tables).
public struct InitSection: Codable, Sendable, Equatable {
    public var url: String
    public var range: ByteSpan?
    /// The key it is encrypted with (HLS: an `EXT-X-KEY` with an explicit IV before it).
    public var key: SegmentKey?

    public init(url: String, range: ByteSpan? = nil, key: SegmentKey? = nil) {
        self.url = url
        self.range = range
        self.key = key
    }
}

/// What the segment store keeps and the pool fetches: a resource, or a byte range of one.
struct StreamPiece: Hashable, Sendable {
    var url: String
    var range: ByteSpan?

    /// Its name in the store: its link's key, or for a range the SHA-256 of that key and the
    /// range (a link's key drops its fragment, so a range cannot ride in one).
    var id: String {
        let key = Cache.key(for: url)
        return range.map { Cache.digest("\(key) bytes=\($0.offset)-\($0.end - 1)") } ?? key
    }

    /// The whole resource it is a range of (itself when it is whole).
    var whole: StreamPiece { StreamPiece(url: url) }
}

extension StreamTrack {
    /// Its pieces in playing order, each init section before the first segment that needs it,
    /// with the times they play (an init section's is its segment's start alone).
    var pieces: [(piece: StreamPiece, start: Double, end: Double)] {
        var result: [(piece: StreamPiece, start: Double, end: Double)] = []
        var start = 0.0
        for segment in segments {
            if let section = section(of: segment) { result.append((StreamPiece(url: section.url, range: section.range), start, start)) }
            result.append((StreamPiece(url: segment.url, range: segment.range), start, start + segment.duration))
            start += segment.duration
        }
        return result
    }
}

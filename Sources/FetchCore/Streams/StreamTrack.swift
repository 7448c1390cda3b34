/// One track of a presentation as HLS and DASH both come to it: its init sections and its media
/// segments in playing order. An HLS media playlist is read into one (`HLSPlaylistParser`); a
/// DASH Representation's Periods become one (`DASHSegmentTemplate`, `DASHSource`). The record
/// keeps it as JSON, so a resume fetches the same segments without reading the link again.
public struct StreamTrack: Codable, Sendable, Equatable {
    /// The init sections its segments name (`EXT-X-MAP`; a Representation's `Initialization`),
    /// each once.
    public var sections: [InitSection] = []
    public var segments: [StreamSegment]

    public init(sections: [InitSection] = [], segments: [StreamSegment]) {
        self.sections = sections
        self.segments = segments
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
    /// Its pieces in playing order, each init section before the first segment that needs it.
    var pieces: [(piece: StreamPiece, start: Double)] {
        var result: [(piece: StreamPiece, start: Double)] = []
        var start = 0.0
        for segment in segments {
            if let section = section(of: segment) { result.append((StreamPiece(url: section.url, range: section.range), start)) }
            result.append((StreamPiece(url: segment.url, range: segment.range), start))
            start += segment.duration
        }
        return result
    }
}

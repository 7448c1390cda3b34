// DASH: a static `.mpd` presentation read into the stream model (`StreamTrack`).
//
//   DASHManifest          what a manifest says: Periods, AdaptationSets, Representations and
//                         how each one's segments are addressed (plain values)
//   DASHManifestParser    libxml2's streaming reader → DASHManifest; no DTD, no entities, no
//                         network, bounded; the one gate from libxml2's errors to DASHRefusal
//   DASHParseState        the elements read so far, each level's segment addressing and
//                         BaseURLs inherited by the levels below; attributes read by their type
//   DASHValue             the schema's value types as packagers write them: xs:duration,
//                         xs:double, whole numbers, byte ranges
//   DASHSegmentTemplate   SegmentTemplate, SegmentList and SegmentBase → the list of segments
//                         ($Number$, $Time$…, SegmentTimeline), with caps on their count
//   DASHSegmentIndex      a `sidx` box (SegmentBase `indexRange`) → byte ranges of segments
//   DASHChoice            the Representations to save: best (or `--quality`) video, and audio
//                         by the desktop's language, else main, else the first; subtitles that
//                         are one file (WebVTT, TTML) in the desktop's language order; never what
//                         is under DRM or needs an EssentialProperty Fetchplay does not know
//   DASHSource            a manifest's answer → the chosen Representations' tracks, Periods
//                         joined (each segment marked with its Period's start)
//   DASHRefusal           why a manifest is not saved, in one sentence
//
// A Representation is, for the saver, an init section and media segments (a URL and maybe a
// byte range): one `StreamTrack`, as an HLS media playlist is. So the manifest is read once, the
// chosen Representations become tracks kept in the presentation's record, and everything after
// that (segments, resume, the remux into one MP4) is the same path as HLS's.

/// A DASH presentation (ISO/IEC 23009-1), as much of it as saving it needs.
public struct DASHManifest: Sendable, Equatable {
    /// `type="dynamic"`: live.
    public var isDynamic: Bool
    /// Seconds (`mediaPresentationDuration`).
    public var duration: Double?
    public var periods: [DASHPeriod]
}

/// One Period: a stretch of the presentation, played after the one before.
public struct DASHPeriod: Sendable, Equatable {
    public var id: String?
    /// Seconds from the presentation's start (`start`), when given.
    public var start: Double?
    /// Seconds (`duration`), or what the next Period's start or the presentation's duration
    /// leave it (filled in once the whole manifest is read).
    public var duration: Double?
    public var adaptationSets: [DASHAdaptationSet]
}

/// A set of interchangeable Representations of one content (a video in several sizes).
public struct DASHAdaptationSet: Sendable, Equatable {
    public var contentType: String?
    public var mimeType: String?
    /// `lang` (RFC 5646).
    public var language: String?
    /// `Role` values of the DASH role scheme ("main", "alternate", "commentary"…).
    public var roles: [String]
    public var representations: [DASHRepresentation]

    /// "video", "audio", "text" or nil, from `contentType`, else the MIME types.
    public var kind: String? {
        if let contentType { return contentType.lowercased() }
        let type = (mimeType ?? representations.first?.mimeType ?? "").lowercased()
        if type.hasPrefix("video/") { return "video" }
        if type.hasPrefix("audio/") { return "audio" }
        if Self.isText(mimeType: type) { return "text" }
        // No type said: the formats tell (RFC 6381 codec names), or a picture size does.
        let formats = Set(representations.flatMap(\.codecs).map { $0.prefix { $0 != "." }.lowercased() })
        if !formats.isDisjoint(with: ["avc1", "avc3", "hvc1", "hev1", "av01", "vp09", "vp8", "mp4v", "dvh1", "dvhe"])
            || representations.contains(where: { $0.height != nil }) { return "video" }
        if !formats.isDisjoint(with: ["mp4a", "ac-3", "ec-3", "opus", "flac", "alac", "ac-4"]) { return "audio" }
        return nil
    }

    /// Whether a MIME type is one of subtitles or captions (WebVTT, TTML, or any `text/`).
    static func isText(mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        return type.hasPrefix("text/") || type.contains("ttml") || type.contains("vtt")
    }
}

/// One encoding: its properties and where its segments are.
public struct DASHRepresentation: Sendable, Equatable {
    public var id: String
    /// Bits per second.
    public var bandwidth: Int
    public var width: Int?
    public var height: Int?
    public var codecs: [String]
    public var mimeType: String?
    /// Its BaseURL, resolved through the Period's, the MPD's and the manifest's own address
    /// (each level's first BaseURL).
    public var baseURL: String
    public var segments: DASHSegmentSource
    /// The DRM it is protected by (`ContentProtection`, its own or its AdaptationSet's), named
    /// for people ("Widevine"); nil: in the clear.
    public var protection: String?
    /// The scheme of an `EssentialProperty` (its own or its AdaptationSet's) Fetchplay does not
    /// know: it cannot be used. Nil: none.
    public var essential: String?
    /// Its BaseURL through the levels' other BaseURLs (the same content on other hosts), in the
    /// manifest's order, at most `mirrorLimit`.
    public var mirrors: [String] = []

    /// Other places kept per Representation.
    public static let mirrorLimit = 4
}

/// How a Representation's segments are addressed (its own element, or the one it inherits
/// from its AdaptationSet or Period, merged attribute by attribute).
public enum DASHSegmentSource: Sendable, Equatable {
    case template(DASHTemplate)
    case list(DASHList)
    case base(DASHBase)
    /// None in a text Representation: one file (WebVTT, TTML) at its BaseURL.
    case file
}

/// `SegmentTimeline`'s `S`: `d` units from `t` (or where the one before ended), `r` more times
/// (negative: up to the next `S`'s `t` or the Period's end).
public struct DASHTimelineEntry: Sendable, Equatable {
    public var time: Int64?
    public var duration: Int64
    public var repeats: Int64
}

/// `SegmentTemplate`: links made from a pattern.
public struct DASHTemplate: Sendable, Equatable {
    public var media: String?
    public var initialization: String?
    public var startNumber: Int64 = 1
    /// Units per second.
    public var timescale: Int64 = 1
    /// Units per segment when there is no timeline (maybe with a fraction: `xs:double`).
    public var duration: Double?
    public var presentationTimeOffset: Int64 = 0
    public var timeline: [DASHTimelineEntry]?
}

/// A byte range `first-last` of a resource, both included.
public struct DASHRange: Sendable, Equatable {
    public var first: Int64
    public var last: Int64
    public var length: Int64 { last - first + 1 }
    /// The same bytes as a segment's range.
    public var span: ByteSpan { ByteSpan(offset: first, length: length) }
}

/// `Initialization` or `RepresentationIndex`: a link (empty: the Representation's BaseURL)
/// and maybe a range of it.
public struct DASHURLRange: Sendable, Equatable {
    public var url: String?
    public var range: DASHRange?
}

/// `SegmentList`: one `SegmentURL` per segment.
public struct DASHList: Sendable, Equatable {
    public var initialization: DASHURLRange?
    public var timescale: Int64 = 1
    /// Units per segment.
    public var duration: Double?
    public var timeline: [DASHTimelineEntry]?
    public var segments: [DASHURLRange]
}

/// `SegmentBase`: one file whose `sidx` (at `indexRange`) lists its segments.
public struct DASHBase: Sendable, Equatable {
    public var initialization: DASHURLRange?
    public var indexRange: DASHRange?
    public var timescale: Int64 = 1
}

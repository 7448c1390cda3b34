/// What HLS masters and DASH manifests offer to choose from, and how the one to save is chosen.

/// One variant of a master playlist (`EXT-X-STREAM-INF`).
public struct StreamVariant: Sendable, Equatable {
    /// The variant's media playlist, resolved against the master's address.
    public var url: String
    /// Bits per second (`BANDWIDTH`).
    public var bandwidth: Int
    /// Pixels (`RESOLUTION=WxH`), when the playlist says.
    public var width: Int?
    public var height: Int?
    /// The audio renditions of its `AUDIO` group (`EXT-X-MEDIA` with `TYPE=AUDIO`), in the
    /// master's order; empty when its audio is only in its own stream.
    public var audio: [AudioRendition]
    /// Its formats (`CODECS`, RFC 6381: "avc1.64002a", "mp4a.40.2", "ec-3"), those of its audio
    /// rendition included; empty when the playlist does not say.
    public var codecs: [String]
    /// A DASH video Representation's `id`: `url` is then the manifest, read again to save it.
    public var representation: String?

    public init(url: String, bandwidth: Int, width: Int? = nil, height: Int? = nil, audio: [AudioRendition] = [],
                codecs: [String] = [], representation: String? = nil) {
        self.url = url
        self.bandwidth = bandwidth
        self.width = width
        self.height = height
        self.audio = audio
        self.codecs = codecs
        self.representation = representation
    }

    /// What tells one video from another: its playlist, or a manifest's Representation.
    var identity: String { representation.map { url + "#" + $0 } ?? url }

    /// Whether every format it names goes into the MP4 Fetchplay writes as it is (GStreamer's
    /// mp4mux: H.264, H.265, AV1, VP9, MPEG-4 video; AAC, MP3, AC-3, Opus, ALAC). E-AC-3,
    /// AC-4, Dolby Vision and FLAC do not; subtitle formats do not count, they are not
    /// fetched. True when the playlist names none.
    public var isSavable: Bool {
        codecs.allSatisfy { codec in
            let kind = codec.prefix { $0 != "." }.lowercased()
            return Self.savableFormats.contains(kind) || Self.textFormats.contains(kind)
        }
    }

    /// Whether its audio is AAC (or it names no audio format): what every player plays, and
    /// the stereo group Apple's authoring rules ask of every presentation.
    var hasPlainAudio: Bool {
        !codecs.contains { codec in
            let kind = codec.prefix { $0 != "." }.lowercased()
            return Self.audioFormats.contains(kind) && kind != "mp4a"
        }
    }

    private static let savableFormats: Set<String> = ["avc1", "avc3", "hvc1", "hev1", "av01", "vp09", "mp4v",
                                                      "mp4a", "ac-3", "opus", "alac"]
    private static let audioFormats: Set<String> = ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "alac", "flac", "mha1", "mhm1"]
    private static let textFormats: Set<String> = ["wvtt", "stpp", "tx3g", "c608"]

    /// The audio rendition to save with this variant when it has a playlist of its own: the
    /// group's `DEFAULT=YES`, else its first `AUTOSELECT=YES`, else its first. Nil when there is
    /// none, or when that one has no `URI` (its audio is in the variant's own segments).
    public var audioToFetch: AudioRendition? {
        let chosen = audio.first(where: \.isDefault) ?? audio.first(where: \.autoselect) ?? audio.first
        return chosen?.url == nil ? nil : chosen
    }

    /// "720p", or the bandwidth when the playlist gives no resolution.
    public var label: String { height.map { "\($0)p" } ?? "\(bandwidth / 1000) kbit/s" }
}

/// An alternative rendition of a master playlist (`EXT-X-MEDIA`); Fetchplay reads the audio ones.
public struct AudioRendition: Sendable, Equatable {
    /// `GROUP-ID`: the variants whose `AUDIO` attribute names it use it.
    public var group: String
    public var name: String
    /// `LANGUAGE` (RFC 5646), when given.
    public var language: String?
    /// Its media playlist, resolved against the master's address; nil: it is in the variant's
    /// own stream.
    public var url: String?
    /// `DEFAULT=YES`: what a player plays unless told otherwise.
    public var isDefault: Bool
    /// `AUTOSELECT=YES`: a player may choose it by itself (by language, say).
    public var autoselect: Bool

    public init(group: String, name: String, language: String? = nil, url: String? = nil, isDefault: Bool = false,
                autoselect: Bool = false) {
        self.group = group
        self.name = name
        self.language = language
        self.url = url
        self.isDefault = isDefault
        self.autoselect = autoselect
    }
}

extension [StreamVariant] {
    /// The variant to save: the highest `BANDWIDTH`; with `quality` ("720p", "720"), the
    /// tallest no taller than that (the shortest if all are taller). Only among the variants
    /// whose formats an MP4 takes, when there are any. Where the playlist lists the same video
    /// once per audio group (Apple's examples: AAC, AC-3, E-AC-3), the AAC one: the others'
    /// extra BANDWIDTH is surround sound, not picture, and AAC plays everywhere.
    public func choose(quality: String? = nil) -> StreamVariant? {
        let savable = filter(\.isSavable)
        let candidates = savable.isEmpty ? self : savable
        let chosen: StreamVariant?
        if let quality, let wanted = Int(quality.lowercased().trimmingCharacters(in: ["p"])) {
            let best = { (a: StreamVariant, b: StreamVariant) in (a.height ?? 0, a.bandwidth) < (b.height ?? 0, b.bandwidth) }
            chosen = candidates.filter { ($0.height ?? 0) <= wanted }.max(by: best) ?? candidates.min(by: best)
        } else {
            chosen = candidates.max { $0.bandwidth < $1.bandwidth }
        }
        guard let chosen, !chosen.hasPlainAudio else { return chosen }
        return candidates.filter { $0.identity == chosen.identity && $0.hasPlainAudio }.max { $0.bandwidth < $1.bandwidth } ?? chosen
    }

    /// The variants worth offering a person: those an MP4 takes (all when none does), each
    /// video once, with the audio `choose` would pick for it.
    public var offered: [StreamVariant] {
        let savable = filter(\.isSavable)
        let candidates = savable.isEmpty ? self : savable
        var seen = Set<String>()
        return candidates.compactMap { variant in
            guard seen.insert(variant.identity).inserted else { return nil }
            return candidates.filter { $0.identity == variant.identity }.choose()
        }
    }
}

/// What one download saves. Every kind lives by the same reducer (`DownloadLife`), takes one slot
/// of the store (`DownloadQueue`) and reports through the same events; only the run differs.
public enum DownloadKind: Sendable, Equatable {
    /// One file as the server sends it, in ranged slices over one or several connections
    /// (`FileRun`). A file whose answer turns out to be a playlist or a manifest becomes a
    /// presentation in the same run.
    case file
    /// An HLS or DASH presentation: its segments on the download's pool of connections, remuxed
    /// into one MP4 as they arrive (`PresentationRun`).
    case presentation(PresentationChoice)

    /// The kind a link's spelling and the cache say, before any request: a playlist or manifest
    /// by its extension, or a presentation begun before (which continues the same way whatever
    /// the link looks like).
    static func guess(requestURL: String, url: String, cache: Cache) -> DownloadKind {
        StreamLink.isPlaylistLink(requestURL) || cache.hasPresentation(for: url) ? .presentation(PresentationChoice()) : .file
    }
}

/// Which variant of a presentation to save.
public struct PresentationChoice: Sendable, Equatable {
    /// "720p": the tallest variant no taller than that; nil: the store's default quality, else
    /// the best.
    public var quality: String?
    /// The variant a person chose from `StreamLink.variants(at:)`: its playlist is read directly
    /// (the master is not read again; its links may carry one-time tokens).
    public var variant: StreamVariant?
    /// Only the audio: a DASH audio Representation or an HLS audio rendition alone, else the
    /// audio of the variant's own segments (the remux takes no video).
    public var audioOnly = false

    public init(quality: String? = nil, variant: StreamVariant? = nil, audioOnly: Bool = false) {
        self.quality = quality
        self.variant = variant
        self.audioOnly = audioOnly
    }
}

/// How a store saves presentations, the same for every one of them.
public struct PresentationSaving: Sendable {
    /// The segments → one playable file (GStreamer's, handed in by a module that may import
    /// it); nil keeps the segments joined as they are (the engine's own tests).
    public var remux: PresentationRemux?
    /// Called when a presentation starts, so the remux's plug-ins load while the first segments
    /// arrive rather than after them.
    public var prepare: @Sendable () -> Void
    /// The quality saved when a download does not choose one ("720p"); nil: the best.
    public var quality: String?
    /// A finished file's audio track copied into a file of its own, for a download that saves
    /// only the audio (GStreamer's, handed in like `remux`); nil keeps the whole file.
    public var audioTrack: AudioTrackCopy?

    public init(remux: PresentationRemux? = nil, quality: String? = nil, audioTrack: AudioTrackCopy? = nil,
                prepare: @escaping @Sendable () -> Void = {}) {
        self.remux = remux
        self.quality = quality
        self.audioTrack = audioTrack
        self.prepare = prepare
    }
}

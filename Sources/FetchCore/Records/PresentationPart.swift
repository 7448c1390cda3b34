/// What a presentation's record holds beyond a file's: the tracks it downloads, kept as they
/// were first read, so a resume works through the same segments even if the server's list
/// changes. A `DownloadRecord` with this part is a presentation's; without it, a file's.
struct PresentationPart: Codable, Sendable, Equatable {
    /// Where its playlist or manifest was read, without the link's password.
    var mediaURL: String
    /// The video (with its audio, or alone), then its audio when that comes apart. Empty in a
    /// record written before tracks were kept (it held HLS text): the link is then read again,
    /// and the segments on disk are kept.
    var tracks: [StreamTrack]
    /// "720p", for people.
    var variant: String?
    /// The audio track's name for people (its language, a rendition's `NAME`).
    var audioName: String?
    /// A presentation with no video: saved as audio (`.m4a`).
    var audioOnly: Bool?
    /// Read over https (the link, or where it redirected): a segment, key or init section it
    /// names over plain http gets nothing of the context (`DownloadOptions.readOverHTTPS`).
    var readOverHTTPS: Bool?
    /// Subtitle files saved beside the video once it is placed; nil: none.
    var subtitles: [StreamSubtitle]?

    init(mediaURL: String, tracks: [StreamTrack], variant: String? = nil) {
        self.mediaURL = mediaURL
        self.tracks = tracks
        self.variant = variant
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mediaURL = try container.decode(String.self, forKey: .mediaURL)
        tracks = try container.decodeIfPresent([StreamTrack].self, forKey: .tracks) ?? []
        guard tracks.allSatisfy(\.isConsistent) else {
            throw DecodingError.dataCorruptedError(forKey: .tracks, in: container, debugDescription: "a segment names no init section")
        }
        variant = try container.decodeIfPresent(String.self, forKey: .variant)
        audioName = try container.decodeIfPresent(String.self, forKey: .audioName)
        audioOnly = try container.decodeIfPresent(Bool.self, forKey: .audioOnly)
        readOverHTTPS = try container.decodeIfPresent(Bool.self, forKey: .readOverHTTPS)
        subtitles = try container.decodeIfPresent([StreamSubtitle].self, forKey: .subtitles)
    }

    /// The saved file's type, which names its extension.
    var contentType: String { audioOnly == true ? "audio/mp4" : "video/mp4" }
}

/// What a presentation's record holds beyond a file's: the playlists it downloads, kept as they
/// were first read, so a resume works through the same segment list even if the server's
/// changes. A `DownloadRecord` with this part is a presentation's; without it, a file's.
struct PresentationPart: Codable, Sendable, Equatable {
    /// The variant's media playlist, and where it was read (relative links resolve from it).
    var mediaURL: String
    var mediaPlaylist: String
    /// "720p", for people.
    var variant: String?
    /// The variant's audio rendition when it has a playlist of its own (`EXT-X-MEDIA`): where
    /// its media playlist was read, its text, and its name for people.
    var audioURL: String?
    var audioPlaylist: String?
    var audioName: String?
    /// A DASH presentation with no video: saved as audio (`.m4a`).
    var audioOnly: Bool?
    /// Read over https (the link, or where it redirected): a segment, key or init section it
    /// names over plain http gets nothing of the context (`DownloadOptions.readOverHTTPS`).
    var readOverHTTPS: Bool?

    /// The saved file's type, which names its extension.
    var contentType: String { audioOnly == true ? "audio/mp4" : "video/mp4" }

    /// The playlists as `(text, base)`: the variant's, then its audio rendition's.
    var playlists: [(text: String, base: String)] {
        var all = [(mediaPlaylist, mediaURL)]
        if let audioPlaylist, let audioURL { all.append((audioPlaylist, audioURL)) }
        return all
    }
}

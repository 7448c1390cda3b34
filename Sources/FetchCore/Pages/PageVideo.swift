/// A video a web page offers: where its media is, and what the page says about it.
public struct PageVideo: Sendable, Equatable, Codable {
    /// What the media is, as far as its link or the page tell before any request.
    public enum Kind: String, Sendable, Codable {
        /// An HLS playlist or a DASH manifest (`.m3u8`, `.mpd`, or typed as one).
        case stream
        /// One file (an MP4, a WebM…), or nothing said.
        case file
        /// A page site support (yt-dlp) reads: the one video it found, or a playlist's entry.
        case site
    }

    /// The media's absolute http(s) link, resolved against the page.
    public var url: String
    public var kind: Kind
    /// Its own title on the page (JSON-LD `name`, the element's `title` or `aria-label`).
    public var title: String?
    /// Seconds, when the page says (JSON-LD `duration`).
    public var duration: Double?
    /// A picture of it, when the page names one (JSON-LD `thumbnailUrl`).
    public var thumbnail: String?

    public init(url: String, kind: Kind, title: String? = nil, duration: Double? = nil, thumbnail: String? = nil) {
        self.url = url
        self.kind = kind
        self.title = title
        self.duration = duration
        self.thumbnail = thumbnail
    }
}

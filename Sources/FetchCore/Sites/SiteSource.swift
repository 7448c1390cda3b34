/// What yt-dlp found for a download, kept with its request context (0600, gone when the video
/// is whole): enough to ask it again when a link dies or after a restart, and to pick the same
/// format then, so the bytes on disk are continued rather than fetched anew.
///
/// Generic pages give ids that are not stable from one read to the next, so a format is
/// matched by its id first, else by its place in the list when the video's title is the same.
public struct SiteSource: Codable, Sendable, Equatable {
    /// The page yt-dlp reads for this one video (a playlist's entry page, or the page itself).
    public var page: String
    /// Which of yt-dlp's extractors read it (`generic`, …).
    public var extractor: String?
    /// The video's id as that extractor gives it.
    public var videoID: String?
    /// The video's place in its playlist, from 1; nil: a page of one video.
    public var entry: Int?
    /// What yt-dlp called the video, for matching a format by place when ids change.
    public var title: String?
    /// The formats saved, video first: their ids, and their places in yt-dlp's list.
    public var formatIDs: [String] = []
    public var formatPlaces: [Int] = []
    /// Only the best audio is saved, as it is (no re-encoding).
    public var audioOnly = false
    /// What the page's own context held before a format's headers joined it: the context kept
    /// with a partial is the format's, and yt-dlp, asked again, must get the page's alone (it
    /// sends the headers it is given to every host), never a format's.
    public var pageParts: PageParts?

    /// The host-bound and identifying parts of the page's context.
    public struct PageParts: Codable, Sendable, Equatable {
        public var headers: [HeaderField]
        public var cookieHeader: String?
        public var userAgent: String?
        public var referer: String?

        init(_ context: RequestContext) {
            headers = context.headers
            cookieHeader = context.cookieHeader
            userAgent = context.userAgent
            referer = context.referer
        }

        /// `context` with these parts back in place of a format's.
        func restore(into context: inout RequestContext) {
            context.headers = headers
            context.cookieHeader = cookieHeader
            context.userAgent = userAgent
            context.referer = referer
        }
    }

    public init(page: String, entry: Int? = nil, audioOnly: Bool = false) {
        self.page = page
        self.entry = entry
        self.audioOnly = audioOnly
    }

    /// Notes what `media` says of the video and which of its formats are saved.
    mutating func note(_ media: SiteMedia, chosen: [SiteMedia.Format]) {
        extractor = media.extractor ?? extractor
        videoID = media.id ?? videoID
        title = media.title ?? title
        formatIDs = chosen.map(\.id)
        formatPlaces = chosen.compactMap { format in media.formats.firstIndex(of: format) }
    }
}

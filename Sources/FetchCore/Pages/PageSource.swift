/// Where a download's media link came from: a video of a web page. Kept with the download's
/// request context (0600, gone when the video is whole), so a continue after a quit requests the
/// media and not the page, and a media link that dies can be found again on the page
/// (`PageMatch`).
public struct PageSource: Codable, Sendable, Equatable {
    /// The video's place on the page, from 1 in page order.
    public var number: Int
    /// What the page called it, to find it again when its place changed.
    public var title: String?
    public var kind: PageVideo.Kind
    /// Its media link as last read from the page (often with a token that expires).
    public var media: String
    /// The page was served over https (though its link may have been http): its media over
    /// plain http gets nothing of the context (`DownloadOptions.readOverHTTPS`).
    public var servedOverHTTPS: Bool?
    /// The picture the page shows for it (`<video poster>`, a JSON-LD `thumbnailUrl`), kept for
    /// the library row once the video is whole (`VideoPicture`).
    public var picture: String?

    public init(number: Int, title: String?, kind: PageVideo.Kind, media: String) {
        self.number = number
        self.title = title
        self.kind = kind
        self.media = media
    }

    /// The `number`th video of `finding`.
    init(_ finding: PageFinding, number: Int) {
        let video = finding.videos[number - 1]
        self.init(number: number, title: finding.title(of: number - 1), kind: video.kind, media: video.url)
        if finding.page.hasPrefix("https:") { servedOverHTTPS = true }
        picture = video.thumbnail
    }

    /// The same video on the page read again: the one at the same place and of the same kind,
    /// else the only one of the same title and kind; nil when neither is there.
    func again(in finding: PageFinding) -> PageSource? {
        if finding.videos.indices.contains(number - 1), finding.videos[number - 1].kind == kind {
            return PageSource(finding, number: number)
        }
        let same = finding.videos.indices.filter { finding.videos[$0].kind == kind && finding.title(of: $0) == title }
        guard same.count == 1 else { return nil }
        return PageSource(finding, number: same[0] + 1)
    }
}

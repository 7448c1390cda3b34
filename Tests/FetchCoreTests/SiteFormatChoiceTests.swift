import Foundation
import Testing
@testable import FetchCore

/// Which of yt-dlp's formats a download saves, what their requests carry, and how DASH
/// fragments become a track: pure, from answers written as yt-dlp writes them.
struct SiteFormatChoiceTests {
    static func format(_ id: String, vcodec: String? = nil, acodec: String? = nil, height: Int? = nil,
                       protocolName: String = "https", url: String? = nil) -> SiteMedia.Format {
        SiteMedia.Format(id: id, url: url ?? "https://cdn.example.com/\(id)", protocolName: protocolName, vcodec: vcodec,
                         acodec: acodec, height: height, httpHeaders: [], fragments: [])
    }

    /// Worst first, best last, as yt-dlp lists them.
    static let media = SiteMedia(title: "Clip", formats: [
        format("a-low", vcodec: "none", acodec: "opus"), format("a-high", vcodec: "none", acodec: "mp4a.40.2"),
        format("v360", vcodec: "avc1", acodec: "none", height: 360), format("v720", vcodec: "avc1", acodec: "none", height: 720),
        format("rtmp1080", vcodec: "avc1", acodec: "aac", height: 1080, protocolName: "rtmp"),
    ], entries: [], isPlaylist: false, entriesLeftOut: 0)

    /// yt-dlp's default is the 1080p RTMP format: the engine's best is only 720p, so the RTMP
    /// one goes to yt-dlp's downloader; when the engine's is as tall, the engine fetches it.
    @Test func ytDlpsBestGoesToItsDownloaderUnlessTheEngineCanFetchOneAsGood() {
        #expect(SiteFormatChoice.choose(Self.media, quality: nil, audioOnly: false, kept: nil).map(\.id) == ["rtmp1080"])
        var media = Self.media
        media.formats[4].height = 720
        #expect(SiteFormatChoice.choose(media, quality: nil, audioOnly: false, kept: nil).map(\.id) == ["v720", "a-high"])
        media.formats.removeLast()
        #expect(SiteFormatChoice.choose(media, quality: nil, audioOnly: false, kept: nil).map(\.id) == ["v720", "a-high"])
    }

    /// A format kept from the last run that only yt-dlp fetches is taken again by its id.
    @Test func aKeptFormatOnlyYtDlpFetchesIsTakenAgain() {
        var kept = SiteSource(page: "https://example.com/watch")
        kept.note(Self.media, chosen: [Self.media.formats[4]])
        #expect(SiteFormatChoice.choose(Self.media, quality: "480p", audioOnly: false, kept: kept).map(\.id) == ["rtmp1080"])
    }

    @Test func aQualityCapsTheHeight() {
        #expect(SiteFormatChoice.choose(Self.media, quality: "480p", audioOnly: false, kept: nil).map(\.id) == ["v360", "a-high"])
        #expect(SiteFormatChoice.choose(Self.media, quality: "144", audioOnly: false, kept: nil).map(\.id) == ["v360", "a-high"],
                "none that low: the lowest")
    }

    @Test func audioOnlyTakesTheBestAudioAlone() {
        #expect(SiteFormatChoice.choose(Self.media, quality: nil, audioOnly: true, kept: nil).map(\.id) == ["a-high"])
    }

    @Test func aFormatWithBothIsSavedAlone() {
        let media = SiteMedia(formats: [Self.format("a", vcodec: "none", acodec: "aac"), Self.format("both", height: 480)],
                              entries: [], isPlaylist: false, entriesLeftOut: 0)
        #expect(SiteFormatChoice.choose(media, quality: nil, audioOnly: false, kept: nil).map(\.id) == ["both"])
    }

    @Test func theKeptFormatsAreTakenAgainByIdElseByPlaceWhenTheTitleIsTheSame() {
        var kept = SiteSource(page: "https://example.com/watch")
        kept.note(Self.media, chosen: [Self.media.formats[2], Self.media.formats[0]])
        #expect(kept.formatIDs == ["v360", "a-low"] && kept.formatPlaces == [2, 0])
        #expect(SiteFormatChoice.choose(Self.media, quality: nil, audioOnly: false, kept: kept).map(\.id) == ["v360", "a-low"])
        // A generic page read again: new ids, same list.
        var renamed = Self.media
        for index in renamed.formats.indices { renamed.formats[index].id = "n\(index)" }
        #expect(SiteFormatChoice.choose(renamed, quality: nil, audioOnly: false, kept: kept).map(\.id) == ["n2", "n0"])
        renamed.title = "Another clip"
        #expect(SiteFormatChoice.choose(renamed, quality: nil, audioOnly: false, kept: kept).map(\.id) == ["n4"],
                "another video: the default again (the 1080p RTMP one)")
    }

    @Test func noneTheEngineCanFetchIsYtDlpsOwnChoiceForItsDownloader() {
        var impersonated = Self.format("imp", height: 720)
        impersonated.needsYtDlp = true
        let media = SiteMedia(formats: [Self.format("r", height: 360, protocolName: "rtmp"), impersonated],
                              entries: [], isPlaylist: false, entriesLeftOut: 0)
        #expect(!SiteFormatChoice.isFetchable(impersonated))
        #expect(SiteFormatChoice.choose(media, quality: nil, audioOnly: false, kept: nil).map(\.id) == ["imp"])
        let none = SiteMedia(formats: [], entries: [], isPlaylist: false, entriesLeftOut: 0)
        #expect(SiteFormatChoice.choose(none, quality: nil, audioOnly: false, kept: nil).isEmpty)
    }

    /// A format's headers and cookies go to its own host; the page's hand-given parts only when
    /// the format is on the page's host.
    @Test func aFormatsHeadersAndCookiesAreBoundToItsHost() throws {
        var format = Self.format("v", url: "https://cdn.example.com/v.mp4")
        format.httpHeaders = [try HeaderField(name: "User-Agent", value: "UA/1"), try HeaderField(name: "X-Signed", value: "s1"),
                              try HeaderField(name: "Referer", value: "https://www.example.com/watch")]
        format.cookies = "cdn=ok; Domain=.example.com; Path=/; Secure; other=no; Domain=.evil.example.net; Path=/"
        var page = RequestContext()
        page.cookieHeader = "session=hand"
        page.headers = [try HeaderField(name: "X-Person", value: "p")]
        let context = format.context(page: page, pageURL: "https://www.example.com/watch")
        #expect(context.userAgent == "UA/1" && context.referer == "https://www.example.com/watch")
        #expect(context.cookieHeader == nil && context.headers.map(\.name) == ["X-Signed"], "the page's host's own stay there")
        #expect(context.cookies.map(\.name) == ["cdn"], "a cookie for another site is dropped")
        let fields = context.fields(for: "https://cdn.example.com/v.mp4", origin: format.url)
        #expect(fields.contains("X-Signed: s1") && fields.contains("Cookie: cdn=ok"), "\(fields)")
        let elsewhere = context.fields(for: "https://other.example.org/v.mp4", origin: format.url)
        #expect(!elsewhere.contains { $0.hasPrefix("X-Signed") || $0.hasPrefix("Cookie") }, "\(elsewhere)")
        let sameHost = format.context(page: page, pageURL: "https://cdn.example.com/watch")
        #expect(sameHost.cookieHeader == "session=hand" && sameHost.headers.map(\.name) == ["X-Person", "X-Signed"])
    }

    @Test func dashFragmentsMakeATrackWithItsInitSection() {
        var format = Self.format("v", protocolName: "http_dash_segments")
        format.fragments = ["https://cdn.example.com/init.m4s", "https://cdn.example.com/1.m4s", "https://cdn.example.com/2.m4s"]
        format.fragmentDurations = [nil, 2, nil]
        let track = SitePresentation.track(of: format, seconds: 5)
        #expect(track.sections == [InitSection(url: "https://cdn.example.com/init.m4s")])
        #expect(track.segments.map(\.url) == ["https://cdn.example.com/1.m4s", "https://cdn.example.com/2.m4s"])
        #expect(track.segments.map(\.duration) == [2, 3], "one without a duration gets what is left")
        #expect(track.segments.allSatisfy { $0.section == 0 })
    }
}

/// Which of yt-dlp's formats a download saves: what yt-dlp's own default (`bv*+ba/b`) would
/// take, fetched by Fetchplay's engine when it can fetch it or formats as good.
///
/// yt-dlp lists formats worst first, best last, so "best" is the last that fits: the best with
/// video (at most `quality`'s height when one is asked), and when it has no audio, the best
/// audio-only format beside it; the two are joined into one MP4 by the remux. When that choice
/// holds a format the engine cannot fetch (another protocol, a browser's TLS fingerprint, no
/// link), the same choice among the formats it can fetch is taken if it is as good (as tall,
/// or for audio as rich), else yt-dlp's own choice goes to its downloader. Audio only takes the
/// best format with audio and no video, else the best with audio. A format kept from an earlier
/// run is taken again when the new list still has it (by id, else by place when the video's
/// title is the same), so a continue lands on the same bytes, whoever fetches it.
enum SiteFormatChoice {
    /// The formats to save, video first; empty when there are none.
    static func choose(_ media: SiteMedia, quality: String?, audioOnly: Bool, kept: SiteSource?) -> [SiteMedia.Format] {
        if let kept, let again = same(kept, in: media) { return again }
        let best = best(media.formats, quality: quality, audioOnly: audioOnly)
        guard !best.allSatisfy(isFetchable) else { return best }
        let fetchable = self.best(media.formats.filter(isFetchable), quality: quality, audioOnly: audioOnly)
        return !fetchable.isEmpty && rank(fetchable) >= rank(best) ? fetchable : best
    }

    /// How good a choice is, to compare two: its video's height, or its audio's bitrate.
    private static func rank(_ chosen: [SiteMedia.Format]) -> Double {
        guard let first = chosen.first else { return 0 }
        return first.hasVideo ? Double(first.height ?? 0) : first.abr ?? first.tbr ?? 0
    }

    private static func best(_ usable: [SiteMedia.Format], quality: String?, audioOnly: Bool) -> [SiteMedia.Format] {
        if audioOnly {
            let audio = usable.last { $0.hasAudio && !$0.hasVideo } ?? usable.last(where: \.hasAudio)
            return audio.map { [$0] } ?? []
        }
        let videos = usable.filter(\.hasVideo)
        let video: SiteMedia.Format?
        if let quality, let wanted = Int(quality.lowercased().trimmingCharacters(in: ["p"])) {
            video = videos.last { ($0.height ?? 0) <= wanted } ?? videos.first
        } else {
            video = videos.last
        }
        guard let video else { return usable.last.map { [$0] } ?? [] }
        guard video.acodec == "none", let audio = usable.last(where: { $0.hasAudio && !$0.hasVideo }) else { return [video] }
        return [video, audio]
    }

    /// Whether the engine can fetch it: one plain http(s) file, DASH fragments, or an HLS media
    /// playlist. Any other protocol (RTMP, Smooth Streaming, f4m, …) is left to yt-dlp.
    static func isFetchable(_ format: SiteMedia.Format) -> Bool {
        guard !format.needsYtDlp else { return false }
        return switch format.protocolName {
        case "http", "https": true
        case "http_dash_segments", "http_dash_segments_generator": !format.fragments.isEmpty
        case "m3u8_native", "m3u8": format.fragments.isEmpty
        default: false
        }
    }

    /// The formats `kept` names, in `media`: all by their ids, else all by their places when
    /// the title is the same; nil when they are not all there.
    private static func same(_ kept: SiteSource, in media: SiteMedia) -> [SiteMedia.Format]? {
        guard !kept.formatIDs.isEmpty else { return nil }
        let byID = kept.formatIDs.compactMap { id in media.formats.first { $0.id == id && !id.isEmpty } }
        if byID.count == kept.formatIDs.count { return byID }
        guard kept.title != nil, kept.title == media.title, kept.formatPlaces.count == kept.formatIDs.count else { return nil }
        let byPlace = kept.formatPlaces.compactMap { media.formats.indices.contains($0) ? media.formats[$0] : nil }
        return byPlace.count == kept.formatPlaces.count ? byPlace : nil
    }
}

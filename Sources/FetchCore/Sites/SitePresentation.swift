/// yt-dlp's chosen formats as one presentation's tracks, for the engine's segments and remux:
/// DASH fragments as they are listed (the first, which has no duration, as the init section),
/// an HLS format's media playlist read as any other, a plain file as one segment.
enum SitePresentation {
    /// - Parameters:
    ///   - formats: the video (with its audio, or alone) first, then an audio-only format.
    ///   - seconds: the video's duration, for a file whose pieces say none.
    ///   - audioOnly: only the audio is saved: a format with video gives the remux its audio alone.
    ///   - fetch: reads an HLS format's playlist with the format's own request context.
    static func part(_ formats: [SiteMedia.Format], seconds: Double?, audioOnly: Bool = false,
                     fetch: ResourceFetch) throws(RunHalt) -> PresentationPart {
        var tracks: [StreamTrack] = []
        for format in formats {
            if !format.fragments.isEmpty {
                tracks.append(track(of: format, seconds: seconds))
            } else if format.protocolName.hasPrefix("m3u8") {
                let answer = try fetch.get(format.url)
                tracks.append(try RunHalt.failing { () throws(DownloadError) in try PresentationRun.track(answer) })
            } else {
                tracks.append(StreamTrack(segments: [StreamSegment(url: format.url, duration: seconds ?? 0)]))
            }
        }
        let first = formats[0]
        var part = PresentationPart(mediaURL: first.manifestURL ?? first.url, tracks: tracks,
                                    variant: first.height.map { "\($0)p" })
        if audioOnly || formats.allSatisfy({ !$0.hasVideo }) { part.audioOnly = true }
        if first.url.hasPrefix("https:") { part.readOverHTTPS = true }
        return part
    }

    /// A DASH format's fragments as a track: one without a duration before the first with one
    /// is its init section (yt-dlp lists a Representation's `Initialization` first).
    static func track(of format: SiteMedia.Format, seconds: Double?) -> StreamTrack {
        let durations = format.fragmentDurations.count == format.fragments.count
            ? format.fragmentDurations : Array(repeating: nil, count: format.fragments.count)
        var track = StreamTrack(segments: [])
        var section: InitSection?
        var pieces = Array(zip(format.fragments, durations))
        if pieces.count > 1, pieces[0].1 == nil {
            section = InitSection(url: pieces[0].0)
            pieces.removeFirst()
        }
        // Pieces that say no duration share what is left of the video's.
        let said = pieces.compactMap(\.1).reduce(0, +)
        let unsaid = pieces.filter { $0.1 == nil }.count
        let share = unsaid > 0 ? max(0, (seconds ?? 0) - said) / Double(unsaid) : 0
        for (url, duration) in pieces {
            track.append(StreamSegment(url: url, duration: duration ?? share), section: section)
        }
        return track
    }

    /// The media type of a file yt-dlp saved, by its extension (what names it in the videos
    /// folder, beside its sniffed bytes).
    static func contentType(ext: String, audioOnly: Bool) -> String {
        switch ext.lowercased() {
        case "webm": audioOnly ? "audio/webm" : "video/webm"
        case "mkv": "video/x-matroska"
        case "opus", "ogg": "audio/ogg"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        default: audioOnly ? "audio/mp4" : "video/mp4"
        }
    }
}

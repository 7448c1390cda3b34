import CGLib

/// Which Representations of a manifest to save: the best video (or the tallest up to
/// `--quality`, by the same rule as an HLS master's variants) and the best audio, in the
/// desktop's language first, else the AdaptationSet marked `main`, else the first. Each Period
/// gets the Representation of the same `id` when it has one, else the same rule again. What is
/// under DRM or needs an `EssentialProperty` Fetchplay does not know is never chosen (the others
/// are). Subtitles that are one file each (WebVTT, TTML) go with the video, the desktop's
/// languages first; segmented ones, or any in a presentation of several Periods, are left out.
public struct DASHChoice: Sendable, Equatable {
    /// Per Period, in order: the video (nil in an audio-only presentation) and the audio (nil
    /// when the video carries its own, or there is none).
    public var video: [DASHRepresentation?]
    public var audio: [DASHRepresentation?]
    /// "720p", for people.
    public var label: String?
    /// The audio's language or its id, for people.
    public var audioName: String?
    /// No video in the presentation: `video` holds the audio.
    public var isAudioOnly = false
    /// The subtitle files, one per language and format, the desktop's languages first.
    public var subtitles: [StreamSubtitle] = []

    /// - Parameters:
    ///   - representation: a video Representation's id a person chose (`variants`).
    ///   - languages: the desktop's languages, most wanted first ("zh", "en").
    ///   - audioOnly: the audio alone, as in a presentation with no video, when there is an
    ///     audio AdaptationSet (else the video, whose own audio the remux then takes).
    /// - Throws: `.protected` when every video (or, audio only, every audio) is under DRM;
    ///   `.invalid` when there is neither video nor audio.
    public static func choose(_ manifest: DASHManifest, quality: String? = nil, representation: String? = nil,
                              languages: [String] = desktopLanguages(), audioOnly: Bool = false) throws(DASHRefusal) -> DASHChoice {
        var choice = DASHChoice(video: [], audio: [])
        var videoID = representation
        var audioID: String?
        for period in manifest.periods {
            let videos = try candidates(period, kind: "video")
            let audios = try candidates(period, kind: "audio", languages: languages)
            var video: DASHRepresentation?
            if !videos.isEmpty {
                video = videos.first { $0.id == videoID } ?? best(videos, quality: quality)
                videoID = video?.id
            }
            var audio: DASHRepresentation?
            if !audios.isEmpty {
                audio = audios.first { $0.id == audioID } ?? audios.first
                audioID = audio?.id
            }
            choice.video.append(video)
            choice.audio.append(audio)
        }
        guard choice.video.contains(where: { $0 != nil }) || choice.audio.contains(where: { $0 != nil }) else {
            throw .invalid("it has no video or audio Representation")
        }
        if audioOnly, choice.audio.contains(where: { $0 != nil }) { choice.video = choice.video.map { _ in nil } }
        if manifest.periods.count == 1, !audioOnly { choice.subtitles = subtitles(manifest.periods[0], languages: languages) }
        if choice.video.allSatisfy({ $0 == nil }) {
            // Audio only: the audio goes where a variant's stream would.
            choice.video = choice.audio
            choice.audio = choice.audio.map { _ in nil }
            choice.isAudioOnly = true
            choice.label = choice.video.compactMap { $0 }.first.map { "\($0.bandwidth / 1000) kbit/s" }
        } else {
            choice.label = choice.video.compactMap { $0 }.first.map(variant(of:))?.label
            choice.audioName = choice.audio.compactMap { $0 }.first.map { $0.id }
            if let index = choice.audio.firstIndex(where: { $0 != nil }),
               let language = manifest.periods[index].adaptationSets.first(where: { $0.representations.contains(choice.audio[index]!) })?.language {
                choice.audioName = language
            }
        }
        return choice
    }

    /// The video Representations a person may choose from, as variants of `url` (the
    /// manifest), best first; each carries the audio `choose` would save with it.
    public static func variants(_ manifest: DASHManifest, url: String, languages: [String] = desktopLanguages()) -> [StreamVariant] {
        guard let period = manifest.periods.first,
              let videos = try? candidates(period, kind: "video"), !videos.isEmpty else { return [] }
        let audio = (try? candidates(period, kind: "audio", languages: languages))?.first
        let variants = videos.map { representation in
            var variant = variant(of: representation)
            variant.url = url
            if let audio {
                variant.codecs += audio.codecs
                variant.audio = [AudioRendition(group: "audio", name: audio.id, url: url, isDefault: true)]
            }
            return variant
        }
        return variants.offered.sorted { ($0.height ?? 0, $0.bandwidth) > ($1.height ?? 0, $1.bandwidth) }
    }

    /// The desktop's languages as two- or three-letter codes, most wanted first (GLib's
    /// reading of LANGUAGE, LC_ALL, LC_MESSAGES and LANG).
    public static func desktopLanguages() -> [String] {
        var result: [String] = []
        guard var names = g_get_language_names() else { return [] }
        while let name = names.pointee {
            let code = String(cString: name).prefix { $0 != "_" && $0 != "." && $0 != "@" }.lowercased()
            if code != "c", code != "posix", !code.isEmpty, !result.contains(code) { result.append(code) }
            names += 1
        }
        return result
    }

    // MARK: Choosing

    /// `sets` with only their Representations that can be used, the empty ones left out.
    private static func usable(_ sets: [DASHAdaptationSet]) -> [DASHAdaptationSet] {
        sets.map { set in
            var copy = set
            copy.representations = set.representations.filter { $0.protection == nil && $0.essential == nil }
            return copy
        }.filter { !$0.representations.isEmpty }
    }

    /// `sets` in the first of `languages` first, then the one marked main, then in their order.
    private static func byLanguage(_ sets: [DASHAdaptationSet], _ languages: [String]) -> [DASHAdaptationSet] {
        func rank(_ set: DASHAdaptationSet) -> Int {
            let language = (set.language ?? "").lowercased().prefix { $0 != "-" && $0 != "_" }
            if let index = languages.firstIndex(where: { $0 == language }) { return index }
            if set.roles.contains("main") { return languages.count }
            return languages.count + 1
        }
        return sets.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    /// The text AdaptationSets' files that can be saved beside the video, the desktop's
    /// languages first, one per language and format: a Representation with no segments (its
    /// BaseURL is the file) of WebVTT or TTML, by its type or else its link's extension.
    static func subtitles(_ period: DASHPeriod, languages: [String]) -> [StreamSubtitle] {
        var result: [StreamSubtitle] = []
        for set in byLanguage(usable(period.adaptationSets.filter { $0.kind == "text" }), languages) {
            for representation in set.representations where representation.segments == .file {
                guard let format = subtitleFormat(representation.mimeType ?? set.mimeType, url: representation.baseURL) else { continue }
                let subtitle = StreamSubtitle(url: representation.baseURL, language: StreamSubtitle.tag(set.language), format: format,
                                              mirrors: representation.mirrors)
                if !result.contains(where: { $0.language == subtitle.language && $0.format == format }) { result.append(subtitle) }
                break
            }
        }
        return result
    }

    /// "vtt" or "ttml" from a MIME type (`text/vtt`, `application/ttml+xml`), else from the
    /// link's extension; nil for other text (a segmented one in MP4, an unknown format).
    private static func subtitleFormat(_ mimeType: String?, url: String) -> String? {
        let type = (mimeType ?? "").lowercased()
        if type.contains("vtt") { return "vtt" }
        if type.contains("ttml") { return "ttml" }
        guard type.isEmpty || type.hasPrefix("text/") || type == "application/xml" else { return nil }
        switch WebAddress.lastPathSegment(of: url)?.lowercased().split(separator: ".").last {
        case "vtt": return "vtt"
        case "ttml", "dfxp": return "ttml"
        default: return nil
        }
    }

    private static func variant(of representation: DASHRepresentation) -> StreamVariant {
        StreamVariant(url: representation.baseURL, bandwidth: representation.bandwidth, width: representation.width,
                   height: representation.height, codecs: representation.codecs, representation: representation.id)
    }

    private static func best(_ videos: [DASHRepresentation], quality: String?) -> DASHRepresentation? {
        let chosen = videos.map(variant(of:)).choose(quality: quality)
        return videos.first { $0.id == chosen?.representation } ?? videos.first
    }

    /// The Representations of `kind` that can be used (in the clear, with no EssentialProperty
    /// Fetchplay does not know), best first: for audio, the AdaptationSet in the first of
    /// `languages`, else the one marked main, else the manifest's first, and in it the highest
    /// bandwidth of a format the MP4 takes.
    ///
    /// - Throws: when there are some and none can be used: `.invalid` naming the property when
    ///   one in the clear needs it, else `.protected`.
    private static func candidates(_ period: DASHPeriod, kind: String, languages: [String] = []) throws(DASHRefusal) -> [DASHRepresentation] {
        let sets = period.adaptationSets.filter { $0.kind == kind }
        let all = sets.flatMap(\.representations)
        guard !all.isEmpty else { return [] }
        let usable = usable(sets)
        guard !usable.isEmpty else {
            if let essential = all.first(where: { $0.protection == nil })?.essential {
                throw .invalid("every \(kind) Representation has an EssentialProperty@schemeIdUri “\(essential)” Fetchplay does not know")
            }
            throw .protected(all.compactMap(\.protection).first ?? "ContentProtection")
        }
        guard kind == "audio" else { return usable.flatMap(\.representations) }
        let ordered = byLanguage(usable, languages)
        return ordered.flatMap { set in
            set.representations.sorted { a, b in
                let savable = { (r: DASHRepresentation) in StreamVariant(url: "", bandwidth: 0, codecs: r.codecs).isSavable }
                return (savable(a) ? 1 : 0, a.bandwidth) > (savable(b) ? 1 : 0, b.bandwidth)
            }
        }
    }
}

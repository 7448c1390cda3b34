/// A manifest's answer → the record of what to save: its chosen Representations as the tracks
/// every presentation is saved from (`StreamTrack`), so segments, resume and remux are the same
/// for HLS and DASH.
enum DASHSource {
    /// Whether an answer to a presentation's link is a DASH manifest: by its first bytes (an
    /// `MPD` root), its type, or, for a body that is no HLS playlist, a link ending in `.mpd`
    /// (so a broken manifest is refused as one).
    static func isManifest(_ answer: ResourceFetch.Answer, link: String) -> Bool {
        let head = answer.body.prefix(MediaSniffer.enough)
        let sniffed = Array(head).withUnsafeBytes { MediaSniffer.document(contentType: answer.contentType, firstBytes: $0) }
        if sniffed == .manifest { return true }
        if sniffed == .playlist { return false }
        if answer.contentType?.lowercased().contains("dash+xml") == true { return true }
        return isManifestLink(link) || isManifestLink(answer.finalURL)
    }

    static func isManifestLink(_ url: String) -> Bool {
        WebAddress.lastPathSegment(of: url)?.lowercased().hasSuffix(".mpd") == true
    }

    static func parse(_ answer: ResourceFetch.Answer) throws(DownloadError) -> DASHManifest {
        // A `.mpd` link that answers with a sign-in page (or a program, an archive…) says so,
        // not that its XML is bad.
        let sniffed = Array(answer.body.prefix(MediaSniffer.enough)).withUnsafeBytes {
            MediaSniffer.document(contentType: answer.contentType, firstBytes: $0)
        }
        if let sniffed, [.webPage, .pdf, .json, .program, .archive, .script, .launcher, .package].contains(sniffed) {
            throw .notAVideo(sniffed)
        }
        do throws(DASHRefusal) {
            return try DASHManifestParser.parse(answer.body, base: answer.finalURL)
        } catch {
            throw .refusedManifest(error)
        }
    }

    /// The record of `url`'s presentation from its manifest's `answer`: the chosen video (or
    /// audio) Representation as the media playlist, the chosen audio as the rendition's. A
    /// SegmentBase Representation's `sidx` is read here (`fetch`), once.
    static func record(url: String, answer: ResourceFetch.Answer, fetch: ResourceFetch, quality: String?,
                       representation: String?, audioOnly: Bool = false) throws(RunHalt) -> PresentationFolder.Record {
        let manifest = try RunHalt.failing { () throws(DownloadError) in try parse(answer) }
        let choice: DASHChoice
        do throws(DASHRefusal) {
            choice = try DASHChoice.choose(manifest, quality: quality, representation: representation, audioOnly: audioOnly)
        } catch {
            throw .failed(.refusedManifest(error))
        }
        var video = StreamTrack(segments: []), audio = StreamTrack(segments: [])
        let periods = manifest.periods.count
        for (index, period) in manifest.periods.enumerated() {
            if let chosen = choice.video[index] {
                video.join(try track(chosen, period: period, fetch: fetch), start: period.start, periods: periods)
            }
            if let chosen = choice.audio[index] {
                audio.join(try track(chosen, period: period, fetch: fetch), start: period.start, periods: periods)
            }
        }
        var part = PresentationPart(mediaURL: answer.finalURL, tracks: [video] + (audio.segments.isEmpty ? [] : [audio]),
                                    variant: choice.label)
        // A video whose audio is in its own segments, saved audio only: the remux takes the audio.
        part.audioOnly = choice.isAudioOnly || audioOnly ? true : nil
        if !audio.segments.isEmpty { part.audioName = choice.audioName }
        if !choice.subtitles.isEmpty { part.subtitles = choice.subtitles }
        return PresentationFolder.record(url: url, part)
    }

    private static func track(_ representation: DASHRepresentation, period: DASHPeriod, fetch: ResourceFetch) throws(RunHalt) -> StreamTrack {
        do throws(DASHRefusal) {
            if let track = try DASHSegmentTemplate.track(of: representation, periodDuration: period.duration) { return track }
        } catch {
            throw .failed(.refusedManifest(error))
        }
        guard case .base(let base) = representation.segments, let indexRange = base.indexRange else {
            throw .failed(.refusedManifest(.invalid("the SegmentBase of “\(representation.id)” has no indexRange")))
        }
        guard indexRange.length <= Int64(ResourceFetch.limit) else { throw .failed(.refusedManifest(.tooLarge("an indexRange of more than 16 MiB"))) }
        let index = try fetch.get([representation.baseURL] + representation.mirrors, range: indexRange)
        do throws(DASHRefusal) {
            return try DASHSegmentTemplate.track(of: representation, index: index.body)
        } catch {
            throw .failed(.refusedManifest(error))
        }
    }
}

extension StreamTrack {
    /// Appends one Period's part of a Representation. With several Periods, each segment is
    /// marked with where its Period starts (`start`, else where the one before ended), so its
    /// fragments' decode times go on from there.
    mutating func join(_ period: StreamTrack, start: Double?, periods: Int) {
        // Where the Period before ended: its start and its segments' length.
        var ended = 0.0
        if let last = segments.last {
            ended = (last.periodStart ?? 0) + segments.reversed().prefix { $0.periodStart == last.periodStart }.reduce(0) { $0 + $1.duration }
        }
        let begins = max(start ?? 0, ended)
        for segment in period.segments {
            var segment = segment
            if periods > 1 { segment.periodStart = begins }
            append(segment, section: period.section(of: segment))
        }
        for mirror in period.mirrors ?? [] where mirrors?.contains(mirror) != true && (mirrors?.count ?? 0) < StreamMirror.limit {
            mirrors = (mirrors ?? []) + [mirror]
        }
    }
}

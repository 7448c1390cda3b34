/// Where the HLS saver meets DASH: a manifest's answer → the record of what to save, its
/// chosen Representations written as HLS media playlists (`DASHPlaylist`), so the saver's
/// segments, resume and remux are the same for both.
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
                       representation: String?) throws(RunHalt) -> PresentationFolder.Record {
        let manifest = try RunHalt.failing { () throws(DownloadError) in try parse(answer) }
        let choice: DASHChoice
        do throws(DASHRefusal) {
            choice = try DASHChoice.choose(manifest, quality: quality, representation: representation)
        } catch {
            throw .failed(.refusedManifest(error))
        }
        var video: [DASHTrack] = [], audio: [DASHTrack] = []
        var videoStarts: [Double] = [], audioStarts: [Double] = []
        for (index, period) in manifest.periods.enumerated() {
            if let chosen = choice.video[index] {
                video.append(try track(chosen, period: period, fetch: fetch))
                videoStarts.append(period.start ?? 0)
            }
            if let chosen = choice.audio[index] {
                audio.append(try track(chosen, period: period, fetch: fetch))
                audioStarts.append(period.start ?? 0)
            }
        }
        var part = PresentationPart(mediaURL: answer.finalURL, mediaPlaylist: DASHPlaylist.text(video, starts: videoStarts),
                                    variant: choice.label)
        part.audioOnly = choice.isAudioOnly ? true : nil
        if !audio.isEmpty {
            part.audioURL = answer.finalURL
            part.audioPlaylist = DASHPlaylist.text(audio, starts: audioStarts)
            part.audioName = choice.audioName
        }
        return PresentationFolder.record(url: url, part)
    }

    private static func track(_ representation: DASHRepresentation, period: DASHPeriod, fetch: ResourceFetch) throws(RunHalt) -> DASHTrack {
        do throws(DASHRefusal) {
            if let track = try DASHSegmentTemplate.track(of: representation, periodDuration: period.duration) { return track }
        } catch {
            throw .failed(.refusedManifest(error))
        }
        guard case .base(let base) = representation.segments, let indexRange = base.indexRange else {
            throw .failed(.refusedManifest(.invalid("the SegmentBase of “\(representation.id)” has no indexRange")))
        }
        guard indexRange.length <= Int64(ResourceFetch.limit) else { throw .failed(.refusedManifest(.tooLarge("an indexRange of more than 16 MiB"))) }
        let index = try fetch.get(representation.baseURL, range: indexRange)
        do throws(DASHRefusal) {
            return try DASHSegmentTemplate.track(of: representation, index: index.body)
        } catch {
            throw .failed(.refusedManifest(error))
        }
    }
}

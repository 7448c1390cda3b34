import Foundation
import Localization
import ThreadKit

/// One run of an HLS or DASH presentation's download on its worker's thread, saved as one video.
///
/// The tracks (a master's best or chosen variant, and its audio rendition when that has a
/// playlist of its own; a DASH manifest's chosen Representations) are read once and kept with
/// the presentation (`StreamTrack`). Its segments are then fetched on the download's pool
/// of connections (`SegmentPool`), each by the file engine's own rules (`FileRun`), so every
/// segment resumes, retries and is never corrupt, and one finished before a pause, a quit or a
/// SIGKILL is never fetched again. While they download, the segments already whole go in playing
/// order (decrypted) into the remux, so the video is written about when the last segment arrives;
/// then it moves into the videos folder. The remux starts over at every run: the segments on
/// disk are what a download keeps.
struct PresentationRun {
    let url: String
    /// The link as requested, with the credentials it may carry; never stored or printed.
    let requestURL: String
    let cache: Cache
    let options: DownloadOptions
    let choice: PresentationChoice
    let limits: SpeedLimits
    /// Where a viewer wants to watch from next (`DownloadBoard.want(seconds:)`).
    let board: DownloadBoard
    let stop: StopSignal
    let report: @Sendable (DownloadEvent) -> Void
    /// The link's playlists are read again rather than the kept ones used: the link is a fresh
    /// one from its web page (the kept playlists may name links that died with the old one).
    /// Segments on disk whose links stay the same are not fetched again.
    var rereadsPlaylist = false
    /// Tracks found by other means (yt-dlp's formats, `SitePresentation`), saved instead of
    /// reading the link when the presentation has none kept or `rereadsPlaylist` is set.
    var givenPart: PresentationPart?

    /// Segments fetched at once from the start: the connection ceiling, at most four when
    /// connections adapt; then more, up to the ceiling, while each added raises the total rate
    /// (a host limiting each connection), as for a file.
    var connections: Int { options.growConnections ? min(ConnectionGrowth.startCount, max(1, options.connections)) : max(1, options.connections) }
    var ceiling: Int { max(1, options.connections) }

    /// - Parameter given: a context to send and keep with the presentation from now on; nil:
    ///   the one kept, else `options.context`.
    func run(given: RequestContext?) -> DownloadState {
        if let entry = cache.entry(for: url), entry.isComplete { return .completed(path: entry.path) }
        let key = Cache.key(for: url)
        do throws(RunHalt) {
            let lock = try RunHalt.failing { () throws(DownloadError) in try PartialLock(cache: cache, key: key) }
            defer { withExtendedLifetime(lock) {} }
            report(.state(.downloading))
            var options = options
            options.context = given ?? cache.context(for: url) ?? options.context
            // Every playlist, key, init section and segment is requested on its own: the
            // host-bound parts of the context stay with the link's host all the same.
            options.origin = options.origin ?? requestURL
            if let given { try RunHalt.failing { () throws(DownloadError) in try cache.keepContext(given, for: url) } as Void }
            let presentation = try RunHalt.failing { () throws(DownloadError) in try PresentationFolder(cache: cache, key: key) }
            var record: PresentationFolder.Record
            // A record of an older version holds no tracks: the link is read again.
            let kept = presentation.load(url: url)
            if !rereadsPlaylist, let kept, kept.presentation?.tracks.isEmpty == false {
                record = kept
            } else {
                record = try choosePlaylist(into: presentation, options: options, keepsSegments: kept != nil)
                // Found on a web page: named after it, as a file from a page is.
                if options.context.page != nil, let name = options.context.suggestedName, name != record.displayName {
                    record.displayName = name
                    try RunHalt.failing { () throws(DownloadError) in try presentation.save(record) }
                }
            }
            // Kept in the record: an older one names it by where its playlist was read.
            if let part = record.presentation, part.readOverHTTPS == true || part.mediaURL.hasPrefix("https:") {
                options.readOverHTTPS = true
            }
            if record.failure != nil {
                // A new try: the last one's reason is no longer what the library should say.
                record.failure = nil
                try RunHalt.failing { () throws(DownloadError) in try presentation.save(record) }
            }
            do throws(RunHalt) {
                guard let part = record.presentation, !part.tracks.isEmpty else { throw .failed(.fileSystem(tr("its record lists no playlist"))) }
                options.presentations.prepare()
                let path = try save(part.tracks, part: part, presentation: presentation, key: key, options: options)
                // What the page knew is needed no longer.
                cache.forgetContext(for: url)
                return .completed(path: path)
            } catch .failed(let error) {
                // Kept with the segments, so the library says why after a restart too.
                record.failure = error.message
                try? presentation.save(record)
                throw .failed(error)
            }
        } catch {
            return error.state
        }
    }

    /// Reads the link (and a master's chosen variant) and keeps its tracks. A refused new
    /// presentation leaves nothing behind; one read again keeps its segments.
    private func choosePlaylist(into presentation: PresentationFolder, options: DownloadOptions,
                                keepsSegments: Bool) throws(RunHalt) -> PresentationFolder.Record {
        if let givenPart {
            let record = PresentationFolder.record(url: url, givenPart)
            try RunHalt.failing { () throws(DownloadError) in try presentation.save(record) }
            return record
        }
        var fetch = ResourceFetch(options: options, stop: stop)
        do throws(RunHalt) {
            // A variant chosen from the master before: its playlist straight away.
            // Audio only: a rendition with a playlist of its own is read alone, never the video's.
            let audio = { (variant: StreamVariant?) in choice.audioOnly ? variant?.audioToFetch?.url : nil }
            var answer = try fetch.get(audio(choice.variant) ?? choice.variant?.url ?? requestURL)
            // Served over https, though its link may have been http: what it names over http
            // (a variant, a rendition, a sidx) is fetched bare from here on, and so are its
            // segments (the record keeps it).
            let readOverHTTPS = answer.finalURL.hasPrefix("https:")
            if readOverHTTPS {
                var secure = options
                secure.readOverHTTPS = true
                fetch = ResourceFetch(options: secure, stop: stop)
            }
            if DASHSource.isManifest(answer, link: requestURL) {
                var record = try DASHSource.record(url: url, answer: answer, fetch: fetch, quality: choice.quality,
                                                   representation: choice.variant?.representation, audioOnly: choice.audioOnly)
                if readOverHTTPS { record.presentation?.readOverHTTPS = true }
                try RunHalt.failing { () throws(DownloadError) in try presentation.save(record) }
                return record
            }
            var chosen = choice.variant
            if chosen == nil, case .master(let variants) = try RunHalt.failing({ () throws(DownloadError) in try Self.parse(answer) }) {
                guard let best = variants.choose(quality: choice.quality) else { throw .failed(.refusedStream(.invalid("it has no variants"))) }
                chosen = best
                answer = try fetch.get(audio(best) ?? best.url)
            }
            var part = PresentationPart(mediaURL: answer.finalURL, tracks: [try RunHalt.failing { () throws(DownloadError) in try Self.track(answer) }],
                                        variant: chosen?.label)
            if readOverHTTPS { part.readOverHTTPS = true }
            if choice.audioOnly {
                part.audioOnly = true
                part.audioName = chosen?.audioToFetch?.name
            } else if let audio = chosen?.audioToFetch, let audioURL = audio.url {
                let audioAnswer = try fetch.get(audioURL)
                part.tracks.append(try RunHalt.failing { () throws(DownloadError) in try Self.track(audioAnswer) })
                part.audioName = audio.name
            }
            let record = PresentationFolder.record(url: url, part)
            try RunHalt.failing { () throws(DownloadError) in try presentation.save(record) }
            return record
        } catch {
            if !keepsSegments { presentation.remove() }
            throw error
        }
    }

    // MARK: Playlists

    static func parse(_ answer: ResourceFetch.Answer) throws(DownloadError) -> HLSPlaylist {
        try parse(String(decoding: answer.body, as: UTF8.self), base: answer.finalURL)
    }

    /// The track of a variant's (or rendition's) playlist; a master there is refused.
    static func track(_ answer: ResourceFetch.Answer) throws(DownloadError) -> StreamTrack {
        guard case .media(let track) = try parse(answer) else {
            throw .refusedStream(.invalid("the variant is itself a master playlist"))
        }
        return track
    }

    static func parse(_ text: String, base: String) throws(DownloadError) -> HLSPlaylist {
        do throws(HLSRefusal) {
            return try HLSPlaylistParser.parse(text, base: base)
        } catch {
            throw .refusedStream(error)
        }
    }
}

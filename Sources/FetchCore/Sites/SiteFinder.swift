import Foundation
import ThreadKit

/// Site support asked about a page the scanner found no video on: yt-dlp lists it flat
/// (`--flat-playlist`, so a playlist takes seconds, not one extraction per entry), and its
/// answer becomes the page's videos: a playlist's entries (each its own page, extracted when
/// its download's turn comes), or the one video it read, kept so it is not asked twice.
enum SiteFinder {
    struct Found {
        var videos: [PageVideo] = []
        var title: String?
        /// The one video's answer (not a playlist).
        var media: SiteMedia?
        /// Entries past the listing's limit, left out.
        var leftOut = 0
        /// Why there is nothing: no site support, or what yt-dlp said.
        var failure: DownloadError?
    }

    /// - Throws: `.stopped` when `stop` was raised while yt-dlp ran.
    static func find(_ page: String, context: RequestContext, options: DownloadOptions,
                     stop: StopSignal) throws(RunHalt) -> Found {
        guard let program = options.sites.located else { return Found(failure: .needsSiteSupport) }
        let media: SiteMedia
        do throws(SiteExtractionError) {
            media = try extraction(program, options: options).extract(page, context: context, flat: true, stop: stop)
        } catch .stopped {
            throw .stopped
        } catch {
            return Found(failure: .siteFailed(error.message))
        }
        var found = Found(title: media.title, leftOut: media.entriesLeftOut)
        if media.isPlaylist {
            found.videos = media.entries.map { PageVideo(url: $0.url, kind: .site, title: $0.title, duration: $0.duration) }
            if found.videos.isEmpty { found.failure = .siteFailed(SiteExtractionError.noVideo.message) }
        } else if !media.formats.isEmpty {
            found.videos = [PageVideo(url: media.webpageURL ?? page, kind: .site, title: media.title, duration: media.duration,
                                      thumbnail: media.thumbnail)]
            found.media = media
        } else {
            found.failure = .siteFailed(SiteExtractionError.noVideo.message)
        }
        return found
    }

    /// One video's page asked again (a playlist's entry, a continue, a link that died).
    static func extract(_ page: String, context: RequestContext, options: DownloadOptions,
                        stop: StopSignal) throws(RunHalt) -> SiteMedia {
        guard let program = options.sites.located else { throw .failed(.needsSiteSupport) }
        do throws(SiteExtractionError) {
            return try extraction(program, options: options).extract(page, context: context, flat: true, stop: stop)
        } catch .stopped {
            throw .stopped
        } catch {
            throw .failed(.siteFailed(error.message))
        }
    }

    /// yt-dlp as `options` ask it: their time limit, the app's proxy and certificate
    /// authorities, its private files in the sites scratch folder.
    static func extraction(_ program: String, options: DownloadOptions) -> SiteExtraction {
        let scratch = options.sites.scratch ?? NSTemporaryDirectory() + "/fetchplay-sites-\(getuid())"
        var extraction = SiteExtraction(program: program, scratch: scratch)
        extraction.timeLimit = options.sites.timeLimit
        extraction.proxy = options.proxy.setting
        extraction.certificateAuthorities = options.certificateAuthorities
        return extraction
    }
}

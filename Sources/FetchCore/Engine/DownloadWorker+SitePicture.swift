import Foundation

extension DownloadWorker {
    /// What yt-dlp says of a finished site video that its file may not: the duration into its
    /// record (the library row's length, with no probe of the file), and the site's picture beside
    /// the library's thumbnails (`SitePicture`), fetched with `format`'s own request context.
    /// Best effort: a picture that fails, is too large or is no image is only logged; the video
    /// is whole either way.
    func noteSiteFacts(_ media: SiteMedia, video: String, format: SiteMedia.Format, page: RequestContext,
                       pageURL: String, options: DownloadOptions) {
        if let seconds = media.duration, seconds > 0 {
            _ = try? cache.updateFinishedRecord(url: url) { if $0.duration == nil { $0.duration = seconds } }
        }
        guard let link = media.thumbnail, let saved = SitePicture.path(for: video, in: cache.thumbnailsDirectory),
              !FileManager.default.fileExists(atPath: saved) else { return }
        var options = options
        options.context = format.context(page: page, pageURL: pageURL)
        // The format's link is the origin: the context's host-bound parts stay with its host,
        // and an https format's context never goes down to an http picture.
        options.origin = format.url.isEmpty ? pageURL : format.url
        options.readOverHTTPS = options.origin?.lowercased().hasPrefix("https:") == true
        let fetch = ResourceFetch(options: options, stop: stopSignal, cutAt: SitePicture.byteLimit + 1)
        let body: [UInt8]
        do throws(RunHalt) {
            body = try fetch.get(link, retrying: false).body
        } catch .failed(let error) {
            return Log.warning("\(url): the site's picture was not fetched: \(error.message)")
        } catch {
            return
        }
        guard body.count <= SitePicture.byteLimit, SitePicture.isImage(body) else {
            return Log.warning("\(url): the site's picture is no image of at most \(SitePicture.byteLimit >> 20) MiB; not kept")
        }
        do throws(DownloadError) {
            try Cache.makePrivateFolder(cache.thumbnailsDirectory)
            try Cache.writePrivateFile(saved, contents: Data(body))
        } catch {
            Log.warning("\(url): the site's picture was not kept: \(error.message)")
        }
    }
}

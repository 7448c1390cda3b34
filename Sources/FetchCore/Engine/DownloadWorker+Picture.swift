import Foundation

extension DownloadWorker {
    /// What yt-dlp says of a finished site video that its file may not: the duration into its
    /// record (the library row's length, with no probe of the file), and the site's picture,
    /// fetched with `format`'s own request context (`keepPicture`).
    func noteSiteFacts(_ media: SiteMedia, video: String, format: SiteMedia.Format, page: RequestContext,
                       pageURL: String, options: DownloadOptions) {
        if let seconds = media.duration, seconds > 0 {
            _ = try? cache.updateFinishedRecord(url: url) { if $0.duration == nil { $0.duration = seconds } }
        }
        guard let link = media.thumbnail else { return }
        // The format's link is the origin: the context's host-bound parts stay with its host.
        keepPicture(link, of: video, context: format.context(page: page, pageURL: pageURL),
                    origin: format.url.isEmpty ? pageURL : format.url, options: options)
    }

    /// Fetches the picture at `link` (a page's poster, a site's thumbnail) for the finished video
    /// at `video` and keeps it beside the library's thumbnails (`VideoPicture`), with `context`
    /// whose host-bound parts belong to `origin`'s host, and nothing of it from an https `origin`
    /// down to an http picture. Best effort: a picture that fails, is too large or is no image is
    /// only logged; the video is whole either way.
    func keepPicture(_ link: String, of video: String, context: RequestContext, origin: String, options: DownloadOptions) {
        guard let link = SiteMedia.link(link), let saved = VideoPicture.path(for: video, in: cache.thumbnailsDirectory),
              !FileManager.default.fileExists(atPath: saved) else { return }
        var options = options
        options.context = context
        options.origin = origin
        options.readOverHTTPS = options.readOverHTTPS || origin.lowercased().hasPrefix("https:")
        let fetch = ResourceFetch(options: options, stop: stopSignal, cutAt: VideoPicture.byteLimit + 1)
        let body: [UInt8]
        do throws(RunHalt) {
            body = try fetch.get(link, retrying: false).body
        } catch .failed(let error) {
            return Log.warning("\(url): the video's picture was not fetched: \(error.message)")
        } catch {
            return
        }
        guard body.count <= VideoPicture.byteLimit, VideoPicture.isImage(body) else {
            return Log.warning("\(url): the video's picture is no image of at most \(VideoPicture.byteLimit >> 20) MiB; not kept")
        }
        do throws(DownloadError) {
            try FileIO.makePrivateFolder(cache.thumbnailsDirectory)
            try FileIO.replaceAtomically(path: saved, contents: Data(body))
        } catch {
            Log.warning("\(url): the video's picture was not kept: \(error.message)")
        }
    }
}

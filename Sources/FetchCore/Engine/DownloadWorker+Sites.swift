import Foundation

extension DownloadWorker {
    /// A video site support found (`PageSource.kind == .site`): yt-dlp read its page, Fetchplay
    /// picks the formats yt-dlp would (`SiteFormatChoice`) and fetches them with its own engine,
    /// a plain file as a `FileRun` (ranges, several connections), anything else as a
    /// presentation of their tracks (`SitePresentation`), video and audio joined by the remux.
    ///
    /// Each run asks yt-dlp anew (its links expire; `answer` saves the first ask when the page
    /// was just read) and takes the formats kept from the last run again, so a continue lands
    /// on the same bytes; when a link dies (401, 403, 404, 410) it asks again and goes on from
    /// the bytes on disk when the new answer agrees with them (the resume table decides).
    func siteRun(context: RequestContext, answer: SiteMedia?, limits: SpeedLimits, options: DownloadOptions) -> DownloadState {
        guard let source = context.page else { return .failed(.notAVideo(.webPage)) }
        var context = context
        var site = context.site ?? SiteSource(page: source.media, entry: source.number, audioOnly: options.audioOnly)
        // The kept context is the format's: the page's own parts go back before yt-dlp is asked.
        if let parts = site.pageParts { parts.restore(into: &context) } else { site.pageParts = SiteSource.PageParts(context) }
        context.site = site
        var answer = answer
        var refreshes = 0
        while true {
            let media: SiteMedia
            if let answer {
                media = answer
            } else {
                do throws(RunHalt) {
                    media = try SiteFinder.extract(site.page, context: context, options: options, stop: stopSignal)
                } catch {
                    return error.state
                }
            }
            answer = nil
            let chosen = SiteFormatChoice.choose(media, quality: options.presentations.quality, audioOnly: site.audioOnly,
                                                 kept: context.site)
            guard !chosen.isEmpty else { return .failed(.siteFailed(SiteExtractionError.noVideo.message)) }
            site.note(media, chosen: chosen)
            context.site = site
            if let title = media.title, context.suggestedName == nil || refreshes == 0 {
                context.suggestedName = chosen.count == 1 && chosen[0].isPlainHTTP ? title + "." + (chosen[0].ext ?? "mp4") : title
            }
            if let name = context.suggestedName { report(.named(name)) }
            // A private context is kept by this worker alone, for the next run.
            if context.isPrivate { givenContext.withLock { $0 = context } }
            let end = save(chosen, of: media, context: context, limits: limits, options: options, rereads: refreshes > 0)
            if case .completed(let video) = end {
                noteSiteFacts(media, video: video, format: chosen[0], page: context, pageURL: site.page, options: options)
            }
            guard case .failed(.httpStatus(let code, _)) = end, Self.deadLink.contains(code),
                  refreshes < Self.maxRefreshes, !stopSignal.isRaised else { return end }
            refreshes += 1
            report(.linkRefreshed)
        }
    }

    /// Saves `chosen` with the requests they need: one plain file through the file engine,
    /// else their tracks as one presentation.
    private func save(_ chosen: [SiteMedia.Format], of found: SiteMedia, context: RequestContext, limits: SpeedLimits,
                      options: DownloadOptions, rereads: Bool) -> DownloadState {
        let first = chosen[0]
        guard let site = context.site else { return .failed(.notAVideo(.webPage)) }
        // The format's own headers and cookies, bound to its link's host; the page and what
        // yt-dlp found stay with it, so a continue after a quit asks yt-dlp again.
        var mediaContext = first.context(page: context, pageURL: site.page)
        mediaContext.page = context.page
        mediaContext.site = context.site
        mediaContext.suggestedName = context.suggestedName
        if !chosen.allSatisfy(SiteFormatChoice.isFetchable) {
            return ytDlpDownload(chosen, of: found, context: context, options: options)
        }
        var options = options
        options.origin = first.url
        options.readOverHTTPS = first.url.hasPrefix("https:")
        // Kept with the site's answer: a progressive format's audio is copied out once it is whole.
        if site.audioOnly { options.audioOnly = true }
        if chosen.count == 1, first.isPlainHTTP {
            chosenKind.withLock { $0 = .file }
            return media(first.url, given: mediaContext, limits: limits, options: options)
        }
        var fetchOptions = options
        fetchOptions.context = mediaContext
        let part: PresentationPart
        do throws(RunHalt) {
            part = try SitePresentation.part(chosen, seconds: found.duration, audioOnly: site.audioOnly,
                                             fetch: ResourceFetch(options: fetchOptions, stop: stopSignal))
        } catch {
            return error.state
        }
        var choice = PresentationChoice()
        choice.quality = options.presentations.quality
        chosenKind.withLock { $0 = .presentation(choice) }
        var run = PresentationRun(url: url, requestURL: first.url, cache: cache, options: options, choice: choice,
                                  limits: limits, board: board, stop: stopSignal, report: report)
        run.givenPart = part
        run.rereadsPlaylist = rereads
        return run.run(given: mediaContext)
    }

    /// Formats the engine cannot fetch, left to yt-dlp's own downloader (`SiteDownload`) in a
    /// folder of the cache kept between runs (with a record there, the library's partial), then
    /// placed in the videos folder with a record like any video.
    private func ytDlpDownload(_ chosen: [SiteMedia.Format], of found: SiteMedia, context: RequestContext,
                               options: DownloadOptions) -> DownloadState {
        guard let site = context.site, let program = options.sites.located else { return .failed(.needsSiteSupport) }
        let key = Cache.key(for: url)
        do throws(RunHalt) {
            let lock = try RunHalt.failing { () throws(DownloadError) in try PartialLock(cache: cache, key: key) }
            defer { withExtendedLifetime(lock) {} }
            report(.state(.downloading))
            if !context.isPrivate { try RunHalt.failing { () throws(DownloadError) in try cache.keepContext(context, for: url) } as Void }
            var extraction = SiteFinder.extraction(program, options: options)
            // Its progress lines are its output: 16 MiB hold a day of two a second.
            extraction.outputLimit = 16 << 20
            let folder = cache.siteDownloadFolder(key: key)
            let name = context.suggestedName ?? found.title ?? StreamLink.title(of: url)
            // Listed as a partial from now on, after a quit too: Continue runs yt-dlp again here.
            let recordPath = cache.siteRecordPath(key: key)
            var partial = cache.loadRecord(at: recordPath, key: key) ?? DownloadRecord(url: url, displayName: name)
            try RunHalt.failing { () throws(DownloadError) in
                try FileIO.makePrivateFolder(folder)
                if FileIO.size(of: recordPath) == nil { try cache.saveRecord(partial, at: recordPath) }
            }
            let download = SiteDownload(extraction: extraction, folder: folder, page: site.page, formatIDs: chosen.map(\.id),
                                        context: context, stop: stopSignal)
            // Heard on this thread, as yt-dlp prints its lines.
            let meter = SpeedMeter()
            let file = try download.run { [report, cache] done, total in
                meter.add(bytes: done, at: monotonicSeconds())
                report(.progress(DownloadProgress(bytesDone: done, total: total, bytesPerSecond: meter.bytesPerSecond)))
                // The total as it becomes known (each format adds its own; an estimate moves), so
                // the row says how far it is after a quit: a write when it moves by 1 % or more.
                // A write that fails costs the row its fraction, not the download.
                if let total, total > 0, abs(total - (partial.total ?? 0)) * 100 >= total {
                    partial.total = total
                    try? cache.saveRecord(partial, at: recordPath)
                }
            }
            guard let size = FileIO.size(of: file) else { throw RunHalt.failed(.fileSystem("yt-dlp's file vanished")) }
            var record = DownloadRecord(url: url, displayName: name)
            record.contentType = SitePresentation.contentType(ext: (file as NSString).pathExtension, audioOnly: chosen.allSatisfy { !$0.hasVideo })
            record.total = size
            record.durableBytes = size
            record.duration = found.duration
            record.completed = Date()
            let placed = try RunHalt.failing { () throws(DownloadError) in try cache.placeVideo(file, record: &record, key: key) }
            try? FileManager.default.removeItem(atPath: folder)
            cache.forgetContext(for: url)
            report(.progress(DownloadProgress(bytesDone: size, total: size, bytesPerSecond: 0)))
            return .completed(path: placed)
        } catch {
            return error.state
        }
    }
}

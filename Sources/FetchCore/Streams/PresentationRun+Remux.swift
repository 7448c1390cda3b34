import CLinux
import Foundation
import ThreadKit

extension PresentationRun {
    /// Downloads every resource not yet whole while one feed per track hands the whole ones
    /// to the remux in playing order; then the video goes into place, and its path is returned.
    /// A pause or a failure stops both, keeping every segment and dropping the half-written video.
    ///
    /// - Parameter tracks: the video's, then its audio's if that comes apart.
    func save(_ tracks: [StreamTrack], part: PresentationPart, presentation: PresentationFolder,
              key: String, options: DownloadOptions) throws(RunHalt) -> String {
        let pieces = SegmentPool.pieces(of: tracks)
        let fragmented = !tracks[0].sections.isEmpty
        let remux = options.presentations.remux
        let output = presentation.folder + (remux == nil ? (fragmented ? "/joined.mp4" : "/joined.ts") : "/video.mp4")
        // Audio only: a variant's own segments give the file their audio alone.
        let inputs: [PresentationRemuxPlan.Input] = tracks.count == 1 ? [part.audioOnly == true ? .audio : .videoAndAudio]
            : [.video] + tracks.dropFirst().map { _ in .audio }
        let plan = PresentationRemuxPlan(output: output, inputs: inputs)
        // This run's segments and feeds stop together: at a pause (the download's stop) or at
        // the first failure of either side.
        let halt = stop.child()
        let keys = SegmentKeyring(fetch: ResourceFetch(options: options, stop: halt))
        // From here on a player can watch it (once its first segments are in), with its WebVTT
        // subtitles, fetched first (a few kilobytes; the saved video takes them too).
        let subtitles = (part.subtitles ?? []).enumerated().filter { $0.element.format == "vtt" }.compactMap { index, subtitle in
            (try? subtitleBytes(subtitle, index: index, presentation: presentation, options: options)).map { _ in
                Self.subtitlePath(index, subtitle, in: presentation)
            }
        }
        board.publish(WatchableStream(tracks: tracks, store: presentation.store, keys: keys, subtitles: subtitles))
        let pool = SegmentPool(store: presentation.store, tracks: tracks, board: board, options: options, limits: limits,
                               connections: connections, ceiling: ceiling, stop: halt, report: report)

        // The remux opens on a thread of its own while the first segments download (GStreamer
        // may still be loading its plug-ins), then one feed per playlist fills it. Joined below.
        let opened = Locked<(any PresentationRemuxStream)?>(nil)
        let feedFailure = Locked<DownloadError?>(nil)
        let feeds = Worker.run(name: "fetchplay remux feeds", stage: .downloads, in: nil) { [self] in
            do throws(DownloadError) {
                let stream = try Self.openStream(plan, remux: remux)
                opened.withLock { $0 = stream }
                try feed(tracks, into: stream, output: output, presentation: presentation,
                         keys: keys, stop: halt)
            } catch {
                // A pause cancels the remux under the feeds: what they then hit is no failure.
                guard !stop.isRaised else { return }
                feedFailure.withLock { $0 = $0 ?? error }
                // The segments stop, and so does the other feed, which may wait in the remux.
                halt.raise()
                presentation.store.close()
                opened.withLock { $0 }?.cancel()
            }
        }

        let segments = Result { () throws(DownloadError) in try pool.fetch(pieces) }
        if case .failure = segments { halt.raise() }
        if halt.isRaised {
            // Feeds that start after this see the store closed and take nothing.
            presentation.store.close()
            opened.withLock { $0 }?.cancel()
        }
        feeds.join()
        let stream = opened.withLock { $0 }
        do throws(RunHalt) {
            if case .failure(let error) = segments { throw .failed(error) }
            if let failure = feedFailure.withLock({ $0 }) { throw .failed(failure) }
            // A pause while the last segments went in.
            guard !halt.isRaised, let stream else { throw .stopped }
            do { try stream.finish() } catch { throw stop.isRaised ? .stopped : .failed(.remuxFailed("\(error)")) }
        } catch {
            stream?.cancel()
            FileIO.remove(output)
            throw error
        }
        return try RunHalt.failing { () throws(DownloadError) in
            try place(output, duration: tracks[0].duration, part: part, presentation: presentation, key: key,
                      segments: pool.progress, options: options)
        }
    }

    /// One feed per track into `stream`, each on a thread of its own (they wait on each
    /// other in the remux, which interleaves them); the first error stops the others. A feed
    /// that stops (a pause, the store closed) cancels the remux, so the other one never
    /// waits in it for streams that will not come.
    private func feed(_ tracks: [StreamTrack], into stream: any PresentationRemuxStream, output: String,
                      presentation: PresentationFolder, keys: SegmentKeyring,
                      stop halt: StopSignal) throws(DownloadError) {
        // The video's pages go to disk while it is written, so the sync at the end waits for
        // the last ones only. The remux writes through a descriptor of its own; this one only
        // starts the writeback (which any descriptor of the file can).
        let writeback = try? FileIO.open(output, O_RDONLY)
        defer { writeback.map(FileIO.close) }
        let failure = Locked<DownloadError?>(nil)
        let threads = tracks.enumerated().map { index, track in
            let feed = SegmentFeed(index: index, track: track)
            return Worker.run(name: "fetchplay feed \(index)", stage: .downloads, in: nil) {
                do throws(DownloadError) {
                    let whole = try feed.run(store: presentation.store, keys: keys, into: stream,
                                             stopped: { halt.isRaised }, appended: { writeback.map { _ = fp_start_writeback($0, 0, 0) } })
                    if !whole { stream.cancel() }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    // The other feed may wait in the remux for this one's streams.
                    stream.cancel()
                }
            }
        }
        threads.forEach { $0.join() }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Fetches a subtitle file (size-capped, from its next place when a host fails) and saves it
    /// beside the video as "Name.LANG.vtt" (or ".ttml"), and returns where. A failure is a
    /// warning: the video is saved all the same.
    private func placeSubtitle(_ subtitle: StreamSubtitle, index: Int, beside video: String, presentation: PresentationFolder,
                               options: DownloadOptions) -> String? {
        let name = RelativeLink.quotedName(of: subtitle.url)
        do throws(DownloadError) {
            guard let bytes = try subtitleBytes(subtitle, index: index, presentation: presentation, options: options) else { return nil }
            // A copy goes: a player watching the presentation may still read the first.
            let source = presentation.folder + "/subtitle." + subtitle.format
            try FileIO.replaceAtomically(path: source, contents: Data(bytes))
            let suffix = (StreamSubtitle.tag(subtitle.language).map { $0 + "." } ?? "") + subtitle.format
            guard let placed = try cache.placeBeside(video, source, suffix: suffix) else {
                Log.warning("The subtitles \(name) were not saved: a file of their name is beside the video already.")
                return nil
            }
            return placed
        } catch {
            Log.warning("The subtitles \(name) were not saved: \(error.message)")
            return nil
        }
    }

    /// A subtitle file's bytes: those fetched before in this presentation (for a player watching
    /// it), else fetched now (size-capped, from its next place when a host fails), checked to be
    /// WebVTT or TTML, and kept in the presentation's folder. Nil: stopped.
    private func subtitleBytes(_ subtitle: StreamSubtitle, index: Int, presentation: PresentationFolder,
                               options: DownloadOptions) throws(DownloadError) -> [UInt8]? {
        let path = Self.subtitlePath(index, subtitle, in: presentation)
        if let kept = FileIO.readSmallFile(path, limit: ResourceFetch.limit), StreamSubtitle.holds(subtitle.format, [UInt8](kept)) {
            return [UInt8](kept)
        }
        let places = [subtitle.url] + (subtitle.mirrors ?? [])
        guard let answer = try RunHalt.unlessStopped({ () throws(RunHalt) in try ResourceFetch(options: options, stop: stop).get(places) })
        else { return nil }
        guard ["vtt", "ttml"].contains(subtitle.format), StreamSubtitle.holds(subtitle.format, answer.body) else {
            throw .badResponse("it is no \(subtitle.format == "vtt" ? "WebVTT" : "TTML") file")
        }
        try FileIO.replaceAtomically(path: path, contents: Data(answer.body))
        return answer.body
    }

    private static func subtitlePath(_ index: Int, _ subtitle: StreamSubtitle, in presentation: PresentationFolder) -> String {
        presentation.folder + "/subtitle-\(index)." + subtitle.format
    }

    private static func openStream(_ plan: PresentationRemuxPlan, remux: PresentationRemux?) throws(DownloadError) -> any PresentationRemuxStream {
        guard let remux else { return try HLSJoinedFile(plan) }
        // Made here, empty and the owner's alone (0600): the muxer's file sink would create it
        // by the umask (0644), readable by others while it grows and once placed in the cache.
        FileIO.close(try FileIO.open(plan.output, O_WRONLY | O_CREAT | O_TRUNC))
        do { return try remux(plan) } catch { throw .remuxFailed("\(error)") }
    }

    // MARK: The video

    /// Syncs the remuxed video, and moves it into the videos folder with its record, its
    /// subtitle files beside it; the presentation's folder goes last.
    private func place(_ output: String, duration: Double, part: PresentationPart, presentation: PresentationFolder,
                       key: String, segments: SegmentProgress?, options: DownloadOptions) throws(DownloadError) -> String {
        let fd = try FileIO.open(output, O_RDONLY)
        defer { FileIO.close(fd) }
        try FileIO.dataSync(fd, path: output)
        guard let size = FileIO.size(of: output) else { throw DownloadError.fileSystem("the joined video vanished") }
        // "index.m3u8" → "index.mp4", or the page's title: the name people see, and the file's
        // under the videos folder.
        var final = DownloadRecord(url: url, displayName: presentation.load(url: url)?.displayName ?? StreamLink.title(of: url))
        final.finalURL = WebAddress.redacted(part.mediaURL)
        final.contentType = part.contentType
        final.total = size
        final.durableBytes = size
        final.duration = duration
        final.completed = Date()
        let destination = try cache.placeVideo(output, record: &final, key: key)
        let companions = (part.subtitles ?? []).enumerated().compactMap { index, subtitle in
            placeSubtitle(subtitle, index: index, beside: destination, presentation: presentation, options: options)
        }
        if !companions.isEmpty {
            // Listed with the video, so deleting it (and undoing that) takes them along.
            try? cache.updateFinishedRecord(url: url) { $0.companions = companions }
        }
        // A player watching the segments keeps them until it goes.
        board.retire { presentation.remove() }
        report(.progress(DownloadProgress(bytesDone: size, total: size, segments: segments)))
        return destination
    }
}

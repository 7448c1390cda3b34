import CGLib
import CGStreamer

// Subtitles: playbin draws the chosen text stream into the frames (`textoverlay`, from
// gstreamer1.0-x) before they reach the video sink, so every path that paints frames shows them.
// Turning them off clears playbin's text flag; choosing a track sets `current-text`. A subtitle
// file becomes playbin's `suburi`, which it reads only when it opens a file: adding one builds
// the pipeline again at the same position. Like an audio track, a text stream chosen while a
// seek waits or runs is switched to once that seek is done (switching streams during a flushing
// seek can deadlock GStreamer 1.22; see Player+AudioTracks.swift).

/// Which subtitle track to show once the tracks are known.
enum SubtitleChoice: Equatable {
    /// The subtitle file's track.
    case external
    /// The file's own stream at this index of playbin's text streams.
    case index(Int)
    case off
}

extension Player {
    /// playbin's `GST_PLAY_FLAG_TEXT`: render subtitles (its flags type is not in a public header).
    static let textFlag: guint = 1 << 2

    /// Shows subtitle track `index` of `subtitleTracks`, or none when nil.
    ///
    /// A paused video shows the change at once (its frame is drawn again); a playing one from
    /// its next frame.
    public func selectSubtitleTrack(_ index: Int?) {
        guard pipeline != nil, failure == nil else { return }
        if let index, !subtitleTracks.indices.contains(index) { return }
        guard prerolled else {
            wantedSubtitle = index.map(SubtitleChoice.index) ?? .off
            return
        }
        guard index != subtitleTrack else { return }
        subtitleTrack = index
        pendingSubtitle = .some(index)
        switchPendingSubtitle()
        notify(.subtitles)
    }

    /// Shows the chosen subtitle track if no seek waits or runs; a paused video draws its frame
    /// again with it.
    func switchPendingSubtitle() {
        guard let choice = pendingSubtitle, prerolled, seekTarget == nil, pendingSeek == nil else { return }
        pendingSubtitle = nil
        apply(choice)
        redrawIfPaused()
    }

    /// Shows the subtitles in the file at `path` (SubRip `.srt`, WebVTT `.vtt`, and the other
    /// formats GStreamer's `subparse` reads) instead of any subtitle file before.
    ///
    /// The pipeline is built again where the video is, so the state is `.loading` for a moment.
    /// A file that cannot be read sets `subtitleProblem` and leaves the video as it was.
    public func addSubtitle(file path: String) {
        guard pipeline != nil, failure == nil else { return }
        guard GStreamer.fileExists(path), GStreamer.uri(forPath: path) != nil else {
            subtitleProblem = .fileNotFound(path: path)
            notify(.subtitles)
            return
        }
        subtitleProblem = nil
        subtitleFile = path
        wantedSubtitle = .external
        reload()
    }

    /// Reads playbin's text streams once the first frame is ready, and shows the one wanted.
    func readSubtitleTracks() {
        guard let pipeline else { return }
        let playbin = pipeline.playbin
        let count = Int(fetchplay_object_get_int(playbin, "n-text"))
        var embedded = 0
        let tracks = SubtitleTrack.distinguished((0..<count).map { index in
            if fetchplay_playbin_text_is_external(playbin, Int32(index)) != 0, let file = subtitleFile {
                let name = file.split(separator: "/").last.map(String.init) ?? file
                return SubtitleTrack(name: name, language: nil, file: file)
            }
            embedded += 1
            let language = Self.textTag(playbin, index, "language-code")
            return SubtitleTrack(name: SubtitleTrack.name(title: Self.textTag(playbin, index, "title"),
                                                          language: language, number: embedded),
                                 language: language, file: nil)
        })
        var problem = subtitleProblem
        if let subtitleFile, !tracks.contains(where: { $0.file != nil }) {
            problem = .notSubtitles(path: subtitleFile)
        }
        var shown: Int?
        switch wantedSubtitle {
        case .external:
            shown = tracks.firstIndex { $0.file != nil } ?? currentSubtitleTrack(of: tracks)
        case .index(let index) where tracks.indices.contains(index):
            shown = index
        case .off:
            shown = nil
        case .index, nil:
            shown = currentSubtitleTrack(of: tracks)
        }
        wantedSubtitle = nil
        // The first frame's seek (a remembered position or speed) may be next: switched after it.
        if shown != currentSubtitleTrack(of: tracks) {
            if pendingSeek != nil || seekTarget != nil { pendingSubtitle = .some(shown) } else { apply(shown) }
        }
        guard tracks != subtitleTracks || shown != subtitleTrack || problem != subtitleProblem else { return }
        subtitleTracks = tracks
        subtitleTrack = shown
        subtitleProblem = problem
        notify(.subtitles)
    }

    /// The track playbin shows now, if its text flag is on.
    private func currentSubtitleTrack(of tracks: [SubtitleTrack]) -> Int? {
        guard let pipeline, fetchplay_object_get_flags(pipeline.playbin, "flags") & Self.textFlag != 0 else { return nil }
        let current = Int(fetchplay_object_get_int(pipeline.playbin, "current-text"))
        return tracks.indices.contains(current) ? current : nil
    }

    /// Tells playbin to show track `index`, or no subtitles.
    private func apply(_ index: Int?) {
        guard let playbin = pipeline?.playbin else { return }
        let flags = fetchplay_object_get_flags(playbin, "flags")
        if let index {
            GStreamer.setProperty(playbin, "current-text", .int(Int64(index)))
            if flags & Self.textFlag == 0 { GStreamer.setProperty(playbin, "flags", .int(Int64(flags | Self.textFlag))) }
        } else if flags & Self.textFlag != 0 {
            GStreamer.setProperty(playbin, "flags", .int(Int64(flags & ~Self.textFlag)))
        }
    }

    /// A paused video draws its frame again (an accurate seek to where it is), with or without
    /// the text now chosen.
    private func redrawIfPaused() {
        guard target == GST_STATE_PAUSED, prerolled, !ended, seekTarget == nil, let position else { return }
        startSeek(to: position, accurate: true)
    }

    private static func textTag(_ playbin: UnsafeMutablePointer<GstElement>, _ index: Int, _ tag: String) -> String? {
        guard let text = fetchplay_playbin_text_tag(playbin, Int32(index), tag) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}

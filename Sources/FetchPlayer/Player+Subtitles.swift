import CGLib
import CGStreamer
import GLibSupport

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
        send(.subtitleChosen(index))
    }

    /// Shows the subtitles in the file at `path` (SubRip `.srt`, WebVTT `.vtt`, and the other
    /// formats GStreamer's `subparse` reads) instead of any subtitle file before.
    ///
    /// The pipeline is built again where the video is, so the state is `.loading` for a moment.
    /// A file that cannot be read sets `subtitleProblem` and leaves the video as it was.
    public func addSubtitle(file path: String) {
        send(.subtitleFileGiven(path, readable: GStreamer.fileExists(path) && String.fileURI(forPath: path) != nil))
    }

    /// playbin's text streams, named for a menu, and the one it shows (nil: its text flag is off).
    func readSubtitleTracks(_ playbin: UnsafeMutablePointer<GstElement>) -> (tracks: [SubtitleTrack], current: Int?) {
        let count = Int(fetchplay_object_get_int(playbin, "n-text"))
        var embedded = 0
        let tracks = SubtitleTrack.distinguished((0..<count).map { index in
            if fetchplay_playbin_text_is_external(playbin, Int32(index)) != 0, let file = phase.subtitleFile {
                let name = file.split(separator: "/").last.map(String.init) ?? file
                return SubtitleTrack(name: name, language: nil, file: file)
            }
            embedded += 1
            let language = Self.textTag(playbin, index, "language-code")
            return SubtitleTrack(name: SubtitleTrack.name(title: Self.textTag(playbin, index, "title"),
                                                          language: language, number: embedded),
                                 language: language, file: nil)
        })
        guard fetchplay_object_get_flags(playbin, "flags") & Self.textFlag != 0 else { return (tracks, nil) }
        let current = Int(fetchplay_object_get_int(playbin, "current-text"))
        return (tracks, tracks.indices.contains(current) ? current : nil)
    }

    /// Tells playbin to show track `index`, or no subtitles.
    func showSubtitle(_ index: Int?) {
        guard let playbin = pipeline?.playbin else { return }
        let flags = fetchplay_object_get_flags(playbin, "flags")
        // A failure is logged where it happened; the video plays on with the subtitles as they were.
        if let index {
            try? GStreamer.setProperty(playbin, "current-text", .int(Int64(index)))
            if flags & Self.textFlag == 0 { try? GStreamer.setProperty(playbin, "flags", .int(Int64(flags | Self.textFlag))) }
        } else if flags & Self.textFlag != 0 {
            try? GStreamer.setProperty(playbin, "flags", .int(Int64(flags & ~Self.textFlag)))
        }
    }

    private static func textTag(_ playbin: UnsafeMutablePointer<GstElement>, _ index: Int, _ tag: String) -> String? {
        String(glibTaking: fetchplay_playbin_text_tag(playbin, Int32(index), tag))
    }
}

import CGLib
import CGStreamer

// Audio tracks: playbin switches between a file's audio streams with `current-audio`, without a
// seek. A track chosen while a seek waits or runs waits for it: switching streams while a
// flushing seek goes through the pipeline can deadlock GStreamer 1.22 (the seek waits for a
// queue's thread, which waits for a pad lock held by the stream switched from). A file reopened
// with a remembered speed and track did both at once, at its first frame.

extension Player {
    /// Plays audio track `index` of `audioTracks` from now on (playbin switches without a seek;
    /// while a seek runs, once it is done).
    public func selectAudioTrack(_ index: Int) {
        guard pipeline != nil, audioTracks.indices.contains(index), index != audioTrack else { return }
        audioTrack = index
        pendingAudioTrack = index
        switchPendingAudioTrack()
        notify(.audioTracks)
    }

    /// Switches to the chosen audio track if no seek waits or runs.
    func switchPendingAudioTrack() {
        guard let index = pendingAudioTrack, let pipeline, prerolled, seekTarget == nil, pendingSeek == nil else { return }
        pendingAudioTrack = nil
        GStreamer.setProperty(pipeline.playbin, "current-audio", .int(Int64(index)))
    }

    /// Reads playbin's audio streams once the first frame is ready.
    func readAudioTracks() {
        guard let pipeline else { return }
        let count = Int(fetchplay_object_get_int(pipeline.playbin, "n-audio"))
        let tracks: [String?] = (0..<count).map { index in
            guard let code = fetchplay_playbin_audio_language(pipeline.playbin, Int32(index)) else { return nil }
            defer { g_free(code) }
            return String(cString: code)
        }
        let current = pendingAudioTrack ?? Int(fetchplay_object_get_int(pipeline.playbin, "current-audio"))
        let playing = tracks.indices.contains(current) ? current : nil
        guard tracks != audioTracks || playing != audioTrack else { return }
        audioTracks = tracks
        audioTrack = playing
        notify(.audioTracks)
    }
}

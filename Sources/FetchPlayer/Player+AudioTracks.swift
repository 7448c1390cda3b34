import CGLib
import CGStreamer
import GLibSupport

// Audio tracks: playbin switches between a file's audio streams with `current-audio`, without a
// seek. A track chosen while a seek waits or runs waits for it: switching streams while a
// flushing seek goes through the pipeline can deadlock GStreamer 1.22 (the seek waits for a
// queue's thread, which waits for a pad lock held by the stream switched from). A file reopened
// with a remembered speed and track did both at once, at its first frame.

extension Player {
    /// Plays audio track `index` of `audioTracks` from now on (playbin switches without a seek;
    /// while a seek runs, once it is done).
    public func selectAudioTrack(_ index: Int) {
        send(.audioTrackChosen(index))
    }

    /// playbin's audio streams, each one's language code when the file names it, and the one
    /// playbin plays.
    func readAudioTracks(_ playbin: UnsafeMutablePointer<GstElement>) -> (tracks: [String?], current: Int) {
        let count = Int(fetchplay_object_get_int(playbin, "n-audio"))
        let tracks = (0..<count).map { String(glibTaking: fetchplay_playbin_audio_language(playbin, Int32($0))) }
        return (tracks, Int(fetchplay_object_get_int(playbin, "current-audio")))
    }
}

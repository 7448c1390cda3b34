/// What the player is doing, as the UI shows it.
///
/// It changes only when GStreamer confirms a change (a state reached, the end reached, an error),
/// never on a request alone, so a play button bound to it never lies.
public enum PlayerState: Equatable, Sendable {
    /// Nothing is open.
    case idle
    /// A file is open and the first frame is being prepared (preroll).
    case loading
    case paused
    case playing
    /// Playback reached the end; `play()` starts again from the beginning.
    case ended
    /// The file cannot be played; the error says why.
    case failed(PlayerError)

    /// Whether the player holds a playable file (paused, playing or ended).
    public var isReady: Bool {
        switch self {
        case .paused, .playing, .ended: true
        case .idle, .loading, .failed: false
        }
    }
}

extension Player {
    /// A value observers are told about, only when it really changes.
    public enum Change: Equatable, Sendable {
        case state(PlayerState)
        /// The duration in seconds became known or changed.
        case duration(Double?)
        /// Volume (linear, 0…1) or mute changed.
        case volume(Double, muted: Bool)
        /// The playback speed changed (1 normal).
        case rate(Double)
        /// The file's audio tracks became known, or another one plays.
        case audioTracks
        /// The subtitle tracks became known, another one shows, subtitles were turned on or
        /// off, or a subtitle file could not be shown (`subtitleProblem`).
        case subtitles
    }
}

/// What a person chose while watching a video, kept in its record so the next play starts the
/// same way: the speed, the audio track, the subtitles.
public struct PlaybackChoices: Sendable, Equatable, Codable {
    /// Playback speed; nil for normal (1×).
    public var rate: Double?
    /// Index of the audio track among the file's; nil for the file's default.
    public var audioTrack: Int?
    /// The subtitles: nil for the file's default, `.off`, or a track index.
    public var subtitles: Subtitles?

    public enum Subtitles: Sendable, Equatable, Codable {
        case off
        case track(Int)
    }

    public init(rate: Double? = nil, audioTrack: Int? = nil, subtitles: Subtitles? = nil) {
        self.rate = rate
        self.audioTrack = audioTrack
        self.subtitles = subtitles
    }

    /// Nothing chosen: the record keeps no choices at all.
    public var isEmpty: Bool { rate == nil && audioTrack == nil && subtitles == nil }
}

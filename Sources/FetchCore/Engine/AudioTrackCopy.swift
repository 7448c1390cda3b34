import ThreadKit

/// The container a file's audio track was copied into, which names the saved file.
public enum AudioContainer: String, Sendable, Equatable {
    /// MP4 audio (`.m4a`): AAC, MP3, ALAC, AC-3 as they are.
    case mp4
    /// WebM audio (`.webm`): Opus and Vorbis, which MP4 does not carry.
    case webm

    /// The saved file's type, which the videos folder names it by.
    var contentType: String { self == .mp4 ? "audio/mp4" : "audio/webm" }
    /// The saved file's extension.
    var fileExtension: String { self == .mp4 ? "m4a" : "webm" }
}

/// Copies the first audio track of the media file `input` into `output` (created or truncated),
/// without re-encoding, and says in which container; what a download that saves only the audio
/// does with a finished file (a progressive site format, a plain link). GStreamer's, handed in by
/// a module that may import it (`PresentationSaving.audioTrack`). Blocks; `stop` cuts it short.
///
/// - Throws: an error whose description says why (no audio track, a codec no container here
///   takes, stopped).
public typealias AudioTrackCopy = @Sendable (_ input: String, _ output: String, _ stop: StopSignal) throws -> AudioContainer

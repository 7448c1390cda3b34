/// Why a file cannot be played, with a sentence a person can act on.
///
/// GStreamer errors become these values in one place, `PlayerError+GStreamer.swift`.
public enum PlayerError: Error, Equatable, Sendable {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The file is not a recognised media file (type detection failed, e.g. a text file).
    case notAVideo
    /// The file is a media file but truncated or damaged.
    case corrupt(detail: String)
    /// A GStreamer plug-in needed to decode the file is not installed.
    case missingCodec(String)
    /// The file could not be read (permissions, I/O error).
    case unreadable(detail: String)
    /// A bounded wait (thumbnail, duration probe) ran out.
    case timedOut
    /// Anything else, with GStreamer's own message.
    case other(String)

    /// A sentence for the person using the app.
    public var message: String {
        switch self {
        case .fileNotFound(let path):
            "The file “\(Self.fileName(path))” could not be found. It may have been moved or deleted."
        case .notAVideo:
            "This file is not a video Fetchplay can recognise. Check that it is a video file and that it downloaded completely."
        case .corrupt:
            "The video is damaged or incomplete and cannot be played. Downloading it again may help."
        case .missingCodec(let name):
            "A GStreamer plug-in needed to play this video is missing (\(name)). Install the package that provides it, for example gstreamer1.0-libav or gstreamer1.0-plugins-bad."
        case .unreadable(let detail):
            "The file could not be read: \(detail). Check that it exists and that you may read it."
        case .timedOut:
            "Reading the video took too long. The file may be damaged, or the disk busy; try again."
        case .other(let detail):
            "The video could not be played: \(detail)"
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

extension PlayerError: CustomStringConvertible {
    public var description: String { message }
}

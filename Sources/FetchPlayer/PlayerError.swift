import Foundation
import Localization

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
    /// A subtitle file given for the video holds nothing GStreamer reads as subtitles.
    case notSubtitles(path: String)
    /// Playback reached a part of a video that is still downloading, or was downloaded only in
    /// part, and no download is running to bring it (paused, offline).
    case notDownloaded
    /// A bounded wait (thumbnail, duration probe) ran out.
    case timedOut
    /// Anything else, with GStreamer's own message.
    case other(String)

    /// A sentence for the person using the app.
    public var message: String {
        switch self {
        case .fileNotFound(let path):
            String(format: tr("The file “%1$@” could not be found. It may have been moved or deleted."), Self.fileName(path))
        case .notAVideo:
            tr("This file is not a video Fetchplay can recognise. Check that it is a video file and that it downloaded completely.")
        case .corrupt:
            tr("The video is damaged or incomplete and cannot be played. Downloading it again may help.")
        case .missingCodec(let name):
            // TRANSLATORS: %1$@ names the missing part (VP9 decoder); the package names stay as they are.
            String(format: tr("A GStreamer plug-in needed to play this video is missing (%1$@). Install the package that provides it, for example gstreamer1.0-libav or gstreamer1.0-plugins-bad."), name)
        case .unreadable(let detail):
            String(format: tr("The file could not be read: %1$@. Check that it exists and that you may read it."), detail)
        case .notSubtitles(let path):
            String(format: tr("The file “%1$@” holds no subtitles Fetchplay can read. Choose a SubRip (.srt) or WebVTT (.vtt) file."), Self.fileName(path))
        case .notDownloaded:
            tr("This part is not downloaded yet.")
        case .timedOut:
            tr("Reading the video took too long. The file may be damaged, or the disk busy; try again.")
        case .other(let detail):
            String(format: tr("The video could not be played: %1$@"), detail)
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

extension PlayerError: CustomStringConvertible {
    public var description: String { message }
}

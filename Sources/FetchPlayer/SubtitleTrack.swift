import CGLib
import CGStreamer
import Localization

/// One subtitle track a video offers: a stream inside the file, or a subtitle file beside it.
public struct SubtitleTrack: Equatable, Sendable {
    /// What a menu shows: the track's title and language ("Commentary (English)"), its language
    /// ("English", in the reader's language), "Subtitles 2", or the subtitle file's name.
    public let name: String
    /// The language code the file gives ("en", "de"), if any.
    public let language: String?
    /// The subtitle file's path, for a track that is not inside the video.
    public let file: String?

    public init(name: String, language: String?, file: String?) {
        self.name = name
        self.language = language
        self.file = file
    }

    /// The extensions of the subtitle files a video picks up beside itself, in order of preference.
    static let fileExtensions = ["srt", "vtt", "SRT", "VTT"]

    /// The subtitle file next to `video` with its name and a subtitle extension
    /// (`film.mkv` → `film.srt`, else `film.vtt`), if there is one.
    static func file(beside video: String) -> String? {
        let slash = video.lastIndex(of: "/").map { video.index(after: $0) } ?? video.startIndex
        let name = video[slash...]
        // A leading dot is a hidden file's name, not an extension.
        let base = name.dropFirst().lastIndex(of: ".").map { video[..<$0] } ?? video[...]
        return fileExtensions.lazy.map { base + "." + $0 }.first { GStreamer.fileExists($0) }
    }

    /// A menu name for a track from its tags: the title and the language's name, either one, or
    /// "Subtitles N" (`number` counts from 1).
    static func name(title: String?, language: String?, number: Int) -> String {
        let languageName = language.flatMap(Self.languageName)
        let title = title.flatMap { $0.isEmpty ? nil : $0 }
        switch (title, languageName) {
        case let (title?, language?) where title.caseInsensitiveCompare(language) != .orderedSame:
            // TRANSLATORS: a subtitle track's menu name: its title, then its language.
            return String(format: tr("%1$@ (%2$@)"), title, language)
        case let (title?, _):
            return title
        case let (nil, language?):
            return language
        case (nil, nil):
            return String(format: tr("Subtitles %1$d"), number)
        }
    }

    /// The name of the language with ISO 639 code `code` in the reader's language ("English",
    /// "德语"), from the iso-codes catalogue; nil for a code it does not know.
    static func languageName(_ code: String) -> String? {
        // "und" (undetermined) and the like name no language a person would pick.
        guard !["und", "mis", "mul", "zxx"].contains(code), let name = gst_tag_get_language_name(code) else { return nil }
        return String(cString: name)
    }

    /// Gives tracks that would look alike in a menu a number each ("English 1", "English 2").
    static func distinguished(_ tracks: [SubtitleTrack]) -> [SubtitleTrack] {
        var counts: [String: Int] = [:]
        for track in tracks { counts[track.name, default: 0] += 1 }
        var seen: [String: Int] = [:]
        return tracks.map { track in
            guard counts[track.name, default: 0] > 1 else { return track }
            seen[track.name, default: 0] += 1
            return SubtitleTrack(name: "\(track.name) \(seen[track.name]!)", language: track.language, file: track.file)
        }
    }
}

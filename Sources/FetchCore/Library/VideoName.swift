import Foundation

/// The name a finished video gets in the videos folder, where people look for it: the server's
/// suggestion (`Content-Disposition`), else the link's last path segment, else its host; made
/// safe for a folder (no `/`, no leading dot, no control characters, at most 255 bytes) and
/// ending in an extension that matches what the file is.
enum VideoName {
    /// Bytes a file name may have on Linux file systems.
    static let maximumBytes = 255

    static func make(suggested: String, contentType: String?) -> String {
        var name = DisplayName.sanitize(suggested) ?? "video"
        let type = contentType.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased()
        if let wanted = type.flatMap({ extensions[$0] }), !wanted.contains(fileExtension(of: name) ?? "") {
            name += "." + wanted[0]
        }
        return fitted(name, suffix: "")
    }

    /// `name` for the `number`th video of that name: "Clip.mp4", "Clip (2).mp4", "Clip (3).mp4"…
    static func numbered(_ name: String, _ number: Int) -> String {
        guard number > 1 else { return name }
        let ext = fileExtension(of: name)
        let stem = ext.map { String(name.dropLast($0.count + 1)) } ?? name
        return fitted(stem, suffix: " (\(number))" + (ext.map { ".\($0)" } ?? ""))
    }

    /// The lower-case extension after the last dot, when it looks like one.
    static func fileExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return ext
    }

    /// `stem + suffix` in at most `maximumBytes` UTF-8 bytes, cutting the stem (never inside a
    /// character) and keeping the suffix (the number, the extension).
    private static func fitted(_ stem: String, suffix: String) -> String {
        var stem = stem
        if stem.utf8.count + suffix.utf8.count <= maximumBytes { return stem + suffix }
        let ext = suffix.isEmpty ? fileExtension(of: stem).map { "." + $0 } ?? "" : ""
        if !ext.isEmpty { stem.removeLast(ext.count) }
        while stem.utf8.count + suffix.utf8.count + ext.utf8.count > maximumBytes { stem.removeLast() }
        return stem + ext + suffix
    }

    /// The extensions a media type's files have, the usual one first.
    private static let extensions: [String: [String]] = [
        "video/mp4": ["mp4", "m4v"], "video/webm": ["webm"], "video/x-matroska": ["mkv"],
        "video/quicktime": ["mov"], "video/x-msvideo": ["avi"], "video/mp2t": ["ts"],
        "video/ogg": ["ogv", "ogg"], "video/x-flv": ["flv"], "video/3gpp": ["3gp"],
        "audio/mpeg": ["mp3"], "audio/ogg": ["ogg", "oga", "opus"], "audio/mp4": ["m4a"],
        "audio/webm": ["weba", "webm"], "audio/flac": ["flac"], "audio/x-wav": ["wav"],
    ]
}

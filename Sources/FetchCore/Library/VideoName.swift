import Foundation

/// The name a finished video gets in the videos folder, where people look for it: the server's
/// suggestion (`Content-Disposition`), else the link's last path segment, else its host; made
/// safe for a folder (no `/`, no leading dot or blank, no control or format characters, at most
/// 255 bytes) and always ending in a media extension that fits what the file is.
///
/// A file manager opens a file by its extension: `Holiday.jar`, `setup.exe`, `x.desktop` or
/// `clip.mp4.exe` in the videos folder would be run, not played, whatever its bytes. So an
/// extension that names another kind of file goes (`nonMediaExtensions`), and the name ends in
/// the extension of the type the bytes showed, else of the server's label: `Holiday.webm`.
enum VideoName {
    /// Bytes a file name may have on Linux file systems.
    static let maximumBytes = 255

    /// - Parameters:
    ///   - contentType: the server's label (`Content-Type`).
    ///   - sniffed: the media type the first bytes showed (`MediaSniffer.mediaType`), which wins.
    static func make(suggested: String, contentType: String?, sniffed: String?) -> String {
        var name = withoutNonMediaExtensions(DisplayName.sanitize(suggested) ?? "video")
        if let own = fileExtension(of: name), mediaExtensions.contains(own) {
            // One a media extension follows goes too: a page titled "Setup.exe" names its MP4
            // "Setup.exe.mp4", which a person reads as a program.
            name = withoutNonMediaExtensions(String(name.dropLast(own.count + 1))) + "." + name.suffix(own.count)
        }
        let own = fileExtension(of: name).flatMap { mediaExtensions.contains($0) ? $0 : nil }
        let wanted = [sniffed, contentType].lazy.compactMap { $0.flatMap(extensions(of:)) }.first
        switch (own, wanted) {
        case (let own?, let wanted?) where !wanted.contains(own):
            // A media extension the bytes or the label contradict: theirs replaces it.
            name = String(name.dropLast(own.count + 1)) + "." + wanted[0]
        case (nil, let wanted?):
            name += "." + wanted[0]
        case (nil, nil):
            // Bytes of no type GLib knows (raw streams, encrypted or damaged files) under a label
            // that names none: MP4, the web's usual container. Players read the bytes and not the
            // name, and a media extension is never run; `.bin` or none would leave the file to
            // whatever the desktop guesses, and to no player.
            name += ".mp4"
        default:
            break
        }
        return fitted(name, suffix: "")
    }

    /// `name` without the extensions at its end that name another kind of file (`x.tar.gz` is
    /// `x`, and so is `x.exe. `), nor dots and blanks after them; "video" when nothing else is left.
    private static func withoutNonMediaExtensions(_ text: String) -> String {
        var name = text
        repeat {
            while name.last == "." || name.last?.isWhitespace == true { name.removeLast() }
            if name.isEmpty { return "video" }
            guard let ext = lastExtension(of: name), nonMediaExtensions.contains(ext.lowercased()) else { return name }
            name.removeLast(ext.count + 1)
        } while true
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

    /// The text after the last dot when it looks like an extension of any length people meet
    /// (`desktop`, `appimage`): letters and digits, with a letter.
    private static func lastExtension(of name: String) -> Substring? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        guard (1...10).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              ext.contains(where: \.isLetter) else { return nil }
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

    /// The extensions of a media type's files, the usual one first; nil for a type that is no
    /// media (or none Fetchplay knows).
    private static func extensions(of type: String) -> [String]? {
        let bare = type.split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces).lowercased()
        return bare.flatMap { mediaTypes[$0] }
    }

    /// Media types, by the server's label and by GLib's guess, and their files' extensions.
    private static let mediaTypes: [String: [String]] = [
        "video/mp4": ["mp4", "m4v"], "video/webm": ["webm"], "video/x-matroska": ["mkv"], "application/x-matroska": ["mkv", "mka"],
        "audio/x-matroska": ["mka"], "video/quicktime": ["mov"], "video/x-msvideo": ["avi"], "video/mp2t": ["ts", "mts", "m2ts"],
        "video/ogg": ["ogv", "ogg"], "video/x-theora+ogg": ["ogv", "ogg"], "video/x-flv": ["flv"], "video/3gpp": ["3gp"],
        "video/mpeg": ["mpg", "mpeg"], "video/x-ms-wmv": ["wmv"], "video/x-ms-asf": ["asf", "wmv"],
        "audio/mpeg": ["mp3"], "audio/ogg": ["ogg", "oga", "opus"], "audio/x-vorbis+ogg": ["ogg", "oga"],
        "audio/x-opus+ogg": ["opus", "ogg"], "audio/opus": ["opus"], "application/ogg": ["ogg", "ogv", "oga", "opus"],
        "audio/mp4": ["m4a"], "audio/x-m4a": ["m4a"], "audio/aac": ["aac"], "audio/webm": ["weba", "webm"],
        "audio/flac": ["flac"], "audio/x-flac": ["flac"], "audio/x-wav": ["wav"], "audio/wav": ["wav"],
    ]

    private static let mediaExtensions = Set(mediaTypes.values.joined())

    /// Extensions of files that are no media, which a name loses: programs, scripts,
    /// launchers, archives, packages and documents, the kinds `MediaSniffer` refuses.
    private static let nonMediaExtensions: Set<String> = [
        "exe", "com", "scr", "pif", "bat", "cmd", "msi", "msp", "msc", "dll", "cpl", "jar", "class", "apk", "app",
        "appimage", "run", "bin", "elf", "so", "ps1", "vbs", "vbe", "js", "jse", "wsf", "wsh", "hta", "lnk", "url",
        "desktop", "sh", "bash", "zsh", "csh", "ksh", "fish", "py", "pl", "rb", "php", "command", "tool",
        "zip", "rar", "7z", "gz", "tgz", "xz", "txz", "bz2", "tbz2", "zst", "tar", "cab", "iso", "dmg", "deb", "rpm",
        "html", "htm", "xhtml", "pdf", "json", "xml", "txt", "svg",
    ]
}

import CGLib
import GLibSupport
import Localization

/// What a response that is not a video is, so the download can stop at once with a sentence
/// that says so instead of saving a web page as a "video".
public enum DocumentKind: String, Sendable, Equatable {
    case webPage, pdf, json, xml, text, playlist, manifest
    /// Files that are never media, whatever their name or label: a program (ELF, PE, Mach-O,
    /// a Java class), an archive (ZIP, RAR, 7z, gzip, xz, bzip2, tar…), a script (`#!`), a
    /// desktop launcher or Windows shortcut, an installer package (DEB, RPM, MSI).
    case program, archive, script, launcher, package

    /// "This link is a web page, not a video."
    public var message: String {
        switch self {
        case .webPage: tr("No video found on this page.")
        case .pdf: tr("This link is a PDF document, not a video.")
        case .json: tr("This link is JSON data, not a video.")
        case .xml: tr("This link is an XML document, not a video.")
        case .text: tr("This link is a text file, not a video.")
        case .playlist: tr("This link is a streaming playlist (HLS), which Fetchplay cannot save yet.")
        // Not a failure people see: such a link goes on as a DASH presentation.
        case .manifest: tr("This link is a streaming manifest (DASH); Fetchplay saves it segment by segment.")
        case .program: tr("This link is a program, not a video; Fetchplay saves only video and audio.")
        case .archive: tr("This link is an archive (such as ZIP), not a video; Fetchplay saves only video and audio.")
        case .script: tr("This link is a script, not a video; Fetchplay saves only video and audio.")
        case .launcher: tr("This link is a desktop launcher or shortcut, not a video; Fetchplay saves only video and audio.")
        case .package: tr("This link is an installer package, not a video; Fetchplay saves only video and audio.")
        }
    }

    /// "a web page", in English, for a detail inside a sentence.
    var article: String {
        switch self {
        case .webPage: "a web page"
        case .pdf: "a PDF document"
        case .json: "JSON data"
        case .xml: "an XML document"
        case .text: "a text file"
        case .playlist: "a playlist"
        case .manifest: "a DASH manifest"
        case .program: "a program"
        case .archive: "an archive"
        case .script: "a script"
        case .launcher: "a desktop launcher"
        case .package: "an installer package"
        }
    }
}

/// Decides from a response's first bytes, and its `Content-Type` only to name which text it is,
/// whether it is a document rather than media.
///
/// The bytes decide, never the label alone: a video served as `text/plain` (nginx's default type
/// when no types table is loaded) or with no type at all is still a video, and an HTML page
/// served as `application/octet-stream` is still a page. What is refused is a PDF (by its magic)
/// and bytes that are text: a page, XML that is no manifest, JSON, plain text. A playlist (HLS
/// `#EXTM3U`) or a manifest (a DASH `<MPD>`) is recognised by its bytes whatever its label, and
/// so is a file that is never media (`neverMedia`): a program, an archive, a script, a launcher.
/// Bytes are judged by GLib's content-type guess (shared-mime-info's magic) and by whether they
/// read as text, over `enough` bytes (or the whole body when it is shorter).
enum MediaSniffer {
    /// Bytes the judgement needs (WHATWG's MIME sniffing reads as many): a body's first bytes
    /// are held back until this many came or the body ended, however slowly they arrive.
    static let enough = 512

    static func document(contentType header: String?, firstBytes all: UnsafeRawBufferPointer) -> DocumentKind? {
        let bytes = UnsafeRawBufferPointer(rebasing: all.prefix(enough))
        if let stream = streamKind(bytes) { return stream }
        let guessed = guess(bytes)
        if let never = neverMedia(bytes, guessed: guessed) { return never }
        if let guessed, isMedia(guessed) { return nil }
        if guessed == "application/pdf" { return .pdf }
        // Anything else that is not text is kept, whatever the server called it.
        guard looksLikeText(bytes) else { return nil }
        // Text: the sniffed kind names it; plain text is only the sniffer's shrug, so a more
        // precise declared kind (JSON served as such) names it then.
        let declared = header.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased()
        let sniffed = guessed.flatMap(kind).flatMap { $0 == .text || $0 == .pdf || $0 == .playlist || $0 == .manifest ? nil : $0 }
        let said = declared.flatMap(kind).flatMap { $0 == .pdf || $0 == .playlist || $0 == .manifest ? nil : $0 }
        return sniffed ?? said ?? .text
    }

    /// The media type of bytes that are media, for the saved file's extension (`VideoName`):
    /// GLib's guess, MPEG-TS by its sync bytes (GLib needs more than 512 bytes for it) and M4A
    /// by its brand (GLib calls every MP4 `video/mp4`); nil when the bytes name no media type.
    static func mediaType(firstBytes all: UnsafeRawBufferPointer) -> String? {
        let bytes = UnsafeRawBufferPointer(rebasing: all.prefix(enough))
        // 188-byte packets (M2TS: 192, each after a 4-byte time code), each starting 0x47.
        for (first, size) in [(0, 188), (4, 192)] where bytes.count > first + 2 * size {
            if stride(from: first, through: first + 2 * size, by: size).allSatisfy({ bytes[$0] == 0x47 }) { return "video/mp2t" }
        }
        if bytes.has("ftypM4A ", at: 4) { return "audio/mp4" }
        return guess(bytes).flatMap { isMedia($0) ? $0 : nil }
    }

    /// A file that is never media, by its first bytes whatever it is called or labelled.
    ///
    /// The families people are tricked with have a row each, matched by their own magic: GLib's
    /// guess names some of them by two or three bytes (`MZ`, gzip's `1F 8B`, `BZh`), which one
    /// encrypted HLS segment in 65,536 begins with, and others by type names that vary with the
    /// shared-mime-info version or hide the family (an EPUB, a DOCX, an APK are ZIPs). So the rows
    /// check more: a PE header where `MZ` says it is, gzip's method and flags, bzip2's block magic,
    /// a shebang's interpreter path on a line of text. GLib's guess then adds the other archive
    /// formats it knows by a long magic.
    private static func neverMedia(_ bytes: UnsafeRawBufferPointer, guessed: String?) -> DocumentKind? {
        let rows: [(DocumentKind, Bool)] = [
            (.program, bytes.has([0x7F, 0x45, 0x4C, 0x46], at: 0)),
            (.program, bytes.has("MZ", at: 0) && bytes.has("PE\0\0", at: bytes.uint32(at: 0x3C).map(Int.init) ?? .max)),
            // Mach-O in either byte order, 32 and 64 bits; CAFEBABE is a fat binary or a Java class.
            (.program, [[UInt8]]([[0xFE, 0xED, 0xFA, 0xCE], [0xFE, 0xED, 0xFA, 0xCF], [0xCE, 0xFA, 0xED, 0xFE],
                        [0xCF, 0xFA, 0xED, 0xFE], [0xCA, 0xFE, 0xBA, 0xBE], [0xCA, 0xFE, 0xBA, 0xBF]]).contains { bytes.has($0, at: 0) }),
            (.archive, ["PK\u{3}\u{4}", "PK\u{5}\u{6}", "PK\u{7}\u{8}", "Rar!\u{1A}\u{7}"].contains { bytes.has($0, at: 0) }),
            // 7z, xz, Zstandard.
            (.archive, [[UInt8]]([[0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [0x28, 0xB5, 0x2F, 0xFD]])
                .contains { bytes.has($0, at: 0) }),
            // gzip: deflate (8) and no reserved flag; bzip2: a block size, then a block or the end.
            (.archive, bytes.has([0x1F, 0x8B, 0x08], at: 0) && bytes.count > 3 && bytes[3] & 0xE0 == 0),
            (.archive, bytes.has("BZh", at: 0) && bytes.count > 3 && (0x31...0x39).contains(bytes[3])
                && (bytes.has([0x31, 0x41, 0x59, 0x26, 0x53, 0x59], at: 4) || bytes.has([0x17, 0x72, 0x45, 0x38, 0x50, 0x90], at: 4))),
            (.archive, bytes.has("ustar", at: 257)),
            (.package, bytes.has("!<arch>\ndebian-binary", at: 0) || bytes.has([0xED, 0xAB, 0xEE, 0xDB], at: 0)
                || bytes.has([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1], at: 0)),
            (.archive, bytes.has("!<arch>\n", at: 0)),
            (.launcher, bytes.has([0x4C, 0, 0, 0, 0x01, 0x14, 0x02, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46], at: 0)),
            (.launcher, firstLine(of: bytes)?.hasPrefix("[Desktop Entry]") == true),
            (.script, isScript(bytes)),
        ]
        if let row = rows.first(where: \.1) { return row.0 }
        let archives = ["application/vnd.ms-cab-compressed", "application/x-cpio", "application/x-lzip", "application/x-xar",
                        "application/x-arj", "application/x-lha", "application/x-ace", "application/x-stuffit"]
        return guessed.map(archives.contains) == true ? .archive : nil
    }

    /// "#!", then an interpreter's absolute path ended by a blank, a NUL or a line end, whatever
    /// follows: the kernel reads no more, so binary bytes on that line (a self-extracting
    /// installer) or no line end within the first bytes still make a script. AMR audio
    /// (`#!AMR`) names no path, and noise seldom spells one (`#!/` alone is kept).
    private static func isScript(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.has("#!", at: 0) else { return false }
        let path = bytes.dropFirst(2).drop { $0 == 0x20 || $0 == 0x09 }
        guard path.first == UInt8(ascii: "/") else { return false }
        let name = path.prefix { $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber
                                               || "/._-+".utf8.contains($0)) }
        guard name.count >= 3, name.endIndex < path.endIndex else { return false }
        return [0x20, 0x09, 0x0A, 0x0D, 0x00].contains(path[name.endIndex])
    }

    /// The first line of `bytes` that is neither blank nor a `#` comment, when it is a whole line
    /// of text: nil for binary bytes.
    private static func firstLine(of bytes: UnsafeRawBufferPointer) -> Substring? {
        var start = bytes.startIndex
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            let line = bytes[start..<end]
            guard !line.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0D || $0 == 0x7F }) else { return nil }
            let text = Substring(String(decoding: UnsafeRawBufferPointer(rebasing: line), as: UTF8.self))
            let blank = text.allSatisfy(\.isWhitespace)
            if !(blank || text.hasPrefix("#")) { return text }
            start = end + 1
        }
        return nil
    }

    /// A playlist or manifest by its first bytes (after a byte order mark and blanks).
    private static func streamKind(_ bytes: UnsafeRawBufferPointer) -> DocumentKind? {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        text = text.drop { $0.isWhitespace }
        if text.hasPrefix("#EXTM3U") { return .playlist }
        guard text.hasPrefix("<") else { return nil }
        // The root element, past the XML declaration, comments and processing instructions.
        while text.hasPrefix("<?") || text.hasPrefix("<!--") {
            let close = text.hasPrefix("<?") ? "?>" : "-->"
            guard let end = text.range(of: close) else { return nil }
            text = text[end.upperBound...].drop { $0.isWhitespace }
        }
        let root = text.dropFirst().prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
        // `<MPD>`, or with a namespace prefix (`<dash:MPD>`).
        return root == "MPD" || root.hasSuffix(":MPD") ? .manifest : nil
    }

    /// No control byte but tabs, line ends, form feeds and escapes: what text reads like.
    private static func looksLikeText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.isEmpty && !bytes.contains { ($0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D, 0x1B].contains($0)) || $0 == 0x7F }
    }

    private static func guess(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard !bytes.isEmpty else { return nil }
        var uncertain: gboolean = 0
        guard let type = g_content_type_guess(nil, bytes.baseAddress?.assumingMemoryBound(to: guchar.self),
                                              gsize(bytes.count), &uncertain) else { return nil }
        defer { g_free(type) }
        // A guess from too few bytes is "application/octet-stream" or uncertain: no verdict.
        guard uncertain == 0 else { return nil }
        return String(glibTaking: g_content_type_get_mime_type(type))
    }

    private static func isMedia(_ type: String) -> Bool {
        guard !type.contains("mpegurl") else { return false }
        return type.hasPrefix("video/") || type.hasPrefix("audio/")
            || ["application/ogg", "application/x-matroska", "application/mp4", "application/vnd.rn-realmedia"].contains(type)
    }

    private static func kind(of type: String) -> DocumentKind? {
        switch type {
        case "text/html", "application/xhtml+xml": .webPage
        case "application/pdf": .pdf
        case "application/json", "text/json": .json
        case "application/xml", "text/xml": .xml
        case "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/x-mpegurl", "audio/mpegurl": .playlist
        case "application/dash+xml": .manifest
        case _ where type.hasSuffix("+json"): .json
        case _ where type.hasSuffix("+xml") && !type.hasPrefix("image/"): .xml
        case _ where type.hasPrefix("text/"): .text
        default: nil
        }
    }
}

fileprivate extension UnsafeRawBufferPointer {
    /// Whether `magic` is at `offset` (false when the bytes end before it).
    func has<Magic: Sequence<UInt8>>(_ magic: Magic, at offset: Int) -> Bool {
        let magic = Array(magic)
        guard offset >= 0, offset <= count - magic.count else { return false }
        return self[offset..<(offset + magic.count)].elementsEqual(magic)
    }

    func has(_ magic: String, at offset: Int) -> Bool { has(magic.utf8, at: offset) }

    /// The little-endian 32-bit number at `offset`, when the bytes hold it.
    func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        return (0..<4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * $1) }
    }
}

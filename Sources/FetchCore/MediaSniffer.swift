import CGLib
import Localization

/// What a response that is not a video is, so the download can stop at once with a sentence
/// that says so instead of saving a web page as a "video".
public enum DocumentKind: String, Sendable, Equatable {
    case webPage, pdf, json, xml, text, playlist, manifest

    /// "This link is a web page, not a video."
    public var message: String {
        switch self {
        case .webPage: tr("This link is a web page, not a video; open it in a browser and copy the video's own link.")
        case .pdf: tr("This link is a PDF document, not a video.")
        case .json: tr("This link is JSON data, not a video.")
        case .xml: tr("This link is an XML document, not a video.")
        case .text: tr("This link is a text file, not a video.")
        case .playlist: tr("This link is a streaming playlist (HLS), which Fetchplay cannot save yet.")
        // Not a failure people see: such a link goes on as a DASH presentation.
        case .manifest: tr("This link is a streaming manifest (DASH); Fetchplay saves it segment by segment.")
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
/// `#EXTM3U`) or a manifest (a DASH `<MPD>`) is recognised by its bytes whatever its label.
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
        guard uncertain == 0, let mime = g_content_type_get_mime_type(type) else { return nil }
        defer { g_free(mime) }
        return String(cString: mime)
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

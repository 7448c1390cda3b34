import CGLib
import Localization

/// What a response that is not a video is, so the download can stop at once with a sentence
/// that says so instead of saving a web page as a "video".
public enum DocumentKind: String, Sendable, Equatable {
    case webPage, pdf, json, xml, text, playlist

    /// "This link is a web page, not a video."
    public var message: String {
        switch self {
        case .webPage: tr("This link is a web page, not a video; open it in a browser and copy the video's own link.")
        case .pdf: tr("This link is a PDF document, not a video.")
        case .json: tr("This link is JSON data, not a video.")
        case .xml: tr("This link is an XML document, not a video.")
        case .text: tr("This link is a text file, not a video.")
        case .playlist: tr("This link is a streaming playlist (HLS), which Fetchplay cannot save yet.")
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
        }
    }
}

/// Decides from a response's `Content-Type` and its first bytes whether it is a document
/// rather than media. The bytes win over the header: a video served as `text/plain` by a
/// misconfigured server is still a video; an HTML page served as `application/octet-stream`
/// is still a page. Bytes are judged by GLib's content-type guess (shared-mime-info's magic).
enum MediaSniffer {
    static func document(contentType header: String?, firstBytes: UnsafeRawBufferPointer) -> DocumentKind? {
        let guessed = guess(firstBytes)
        if let guessed, isMedia(guessed) { return nil }
        let declared = header.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased()
        // The sniffed type first (it saw the bytes), then what the server said; but plain text
        // is only the sniffer's shrug, so a more precise declared kind (JSON) wins over it.
        var sniffed = guessed.flatMap(kind)
        let said = declared.flatMap(kind)
        // shared-mime-info names some text types by one leading byte ("%" is MATLAB source), so
        // binary bytes can be guessed as text: such a guess counts only for bytes that are text.
        if sniffed == .text, !looksLikeText(firstBytes) { sniffed = nil }
        if sniffed == .text, let said { return said }
        return sniffed ?? said
    }

    /// No control byte but tabs, line ends, form feeds and escapes in the first 512 bytes.
    private static func looksLikeText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.prefix(512).contains { ($0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D, 0x1B].contains($0)) || $0 == 0x7F }
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
        case _ where type.hasSuffix("+json"): .json
        case _ where type.hasSuffix("+xml") && !type.hasPrefix("image/"): .xml
        case _ where type.hasPrefix("text/"): .text
        default: nil
        }
    }
}

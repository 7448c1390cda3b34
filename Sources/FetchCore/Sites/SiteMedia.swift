import Foundation

/// What yt-dlp answered about a page (`yt-dlp -J`), read as hostile input: one JSON object of at
/// most `SiteExtraction.outputLimit` bytes, every field checked for its type, texts cut to
/// their limits and stripped of control characters, and only absolute http and https links
/// kept (a `file:`, `data:` or any other link is refused: a format with one is dropped), but
/// for formats of streaming protocols (RTMP, RTSP, MMS) or with no link at all, which only
/// yt-dlp's own downloader fetches (`needsYtDlp`): kept, so they can be chosen.
public struct SiteMedia: Sendable, Equatable {
    /// A way yt-dlp offers to fetch the video.
    public struct Format: Sendable, Equatable {
        public var id: String
        /// Its media link (http or https); for fragments, the manifest's or the first one's. A
        /// format only yt-dlp fetches may have a streaming one (`rtmp://…`) or none (empty).
        public var url: String
        /// yt-dlp's protocol: `https`, `http`, `m3u8_native`, `http_dash_segments`, …
        public var protocolName: String
        public var ext: String?
        /// `none` when it has no video (audio only); nil when yt-dlp does not say.
        public var vcodec: String?
        /// `none` when it has no audio (video only); nil when yt-dlp does not say.
        public var acodec: String?
        public var height: Int?
        /// Kbit/s, when said.
        public var tbr: Double?
        /// Header fields its requests need (User-Agent, Referer, …), in yt-dlp's order.
        public var httpHeaders: [HeaderField]
        /// Its pieces, for a fragmented format (DASH segments): absolute links.
        public var fragments: [String]
        /// Seconds each of `fragments` plays, nil where yt-dlp does not say: an init section
        /// (yt-dlp lists a DASH Representation's `Initialization` first, with no duration).
        public var fragmentDurations: [Double?] = []
        public var fragmentBaseURL: String?
        public var manifestURL: String?
        /// Cookies its requests need, as yt-dlp gives them: `Set-Cookie`-like pieces with
        /// `Domain` and `Path`, each read by a browser's rules for its own link.
        public var cookies: String?
        /// Audio Kbit/s, when said.
        public var abr: Double?
        /// Bytes, when said (exact or yt-dlp's guess).
        public var filesize: Int64?
        /// A language tag, when said.
        public var language: String?
        /// Its requests need what only yt-dlp does (a browser's TLS fingerprint, a request
        /// body): yt-dlp's own downloader fetches it.
        public var needsYtDlp = false

        /// Whether it holds video (or nothing is said against it).
        public var hasVideo: Bool { vcodec != "none" }
        /// Whether it holds audio (or nothing is said against it).
        public var hasAudio: Bool { acodec != "none" }

        /// Whether it is one plain file fetched over http(s), audio and video together (or
        /// nothing said against it): what the engine's `FileRun` saves as it is.
        public var isProgressive: Bool {
            ["http", "https"].contains(protocolName) && fragments.isEmpty && vcodec != "none" && acodec != "none"
        }

        /// Whether it is fetched over plain http(s) in one request, whatever its streams.
        public var isPlainHTTP: Bool { ["http", "https"].contains(protocolName) && fragments.isEmpty }
    }

    /// A playlist's entry, as `--flat-playlist` lists it.
    public struct Entry: Sendable, Equatable {
        public var id: String?
        public var title: String?
        /// Its page (http or https).
        public var url: String
        public var duration: Double?
    }

    public var id: String?
    public var title: String?
    /// Seconds.
    public var duration: Double?
    public var thumbnail: String?
    /// The page yt-dlp read (http or https), when it says.
    public var webpageURL: String?
    /// Which of yt-dlp's extractors read it (`generic`, …).
    public var extractor: String?
    /// In yt-dlp's order: worst first, best last.
    public var formats: [Format]
    /// A playlist's entries (at most `entryLimit`); empty for one video.
    public var entries: [Entry]
    /// Whether yt-dlp called it a playlist.
    public var isPlaylist: Bool
    /// Entries left out past `entryLimit`.
    public var entriesLeftOut: Int

    /// Entries listed at most.
    public static let entryLimit = 1_000
    /// Formats kept at most.
    static let formatLimit = 1_000
    /// Fragments of one format kept at most (a format with more is dropped).
    static let fragmentLimit = 100_000
    /// Header fields of one format kept at most.
    static let headerLimit = 32
    /// Characters of a title kept at most.
    static let titleLimit = 300
    /// Characters of a link accepted at most.
    static let linkLimit = 8192

    /// Why an answer cannot be read.
    public enum ParseError: Error, Sendable, Equatable {
        /// Not one JSON object.
        case notJSON
    }

    /// Reads yt-dlp's `-J` output.
    public static func parse(_ data: Data) throws(ParseError) -> SiteMedia {
        // Foundation's JSON reader refuses nesting deeper than 512 levels itself.
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              let root = object as? [String: Any] else { throw .notJSON }
        var media = SiteMedia(formats: [], entries: [], isPlaylist: false, entriesLeftOut: 0)
        media.id = text(root["id"], limit: 200)
        media.title = text(root["title"], limit: titleLimit)
        media.duration = number(root["duration"]).flatMap { $0 >= 0 && $0 < 1e9 ? $0 : nil }
        media.thumbnail = link(root["thumbnail"])
        media.webpageURL = link(root["webpage_url"])
        media.extractor = text(root["extractor"], limit: 100)
        media.isPlaylist = (root["_type"] as? String) == "playlist"
        if let formats = root["formats"] as? [Any] {
            media.formats = formats.prefix(formatLimit).compactMap { ($0 as? [String: Any]).flatMap(format) }
        } else if let own = format(root) {
            // One format given on the video itself (`url` at the top).
            media.formats = [own]
        }
        if let entries = root["entries"] as? [Any] {
            media.entries = entries.prefix(entryLimit).compactMap { ($0 as? [String: Any]).flatMap(entry) }
            media.entriesLeftOut = max(0, entries.count - entryLimit)
        }
        return media
    }

    private static func format(_ object: [String: Any]) -> Format? {
        let protocolName = text(object["protocol"], limit: 40) ?? "https"
        let base = link(object["fragment_base_url"])
        var fragments: [String] = []
        var durations: [Double?] = []
        if let pieces = object["fragments"] as? [Any] {
            guard pieces.count <= fragmentLimit else { return nil }
            for piece in pieces {
                guard let piece = piece as? [String: Any] else { return nil }
                if let url = link(piece["url"]) {
                    fragments.append(url)
                } else if let path = text(piece["path"], limit: linkLimit), let base,
                          let url = link(RelativeLink.resolve(path, against: base)) {
                    fragments.append(url)
                } else {
                    // One piece that is no http(s) link spoils the whole format.
                    return nil
                }
                durations.append(number(piece["duration"]).flatMap { $0 > 0 && $0 < 1e6 ? $0 : nil })
            }
        }
        let manifest = link(object["manifest_url"])
        let id = text(object["format_id"], limit: 100) ?? ""
        let url: String
        var onlyYtDlp = false
        if let fetched = link(object["url"]) ?? manifest ?? fragments.first, object["url"] == nil || link(object["url"]) != nil {
            url = fetched
        } else if let streaming = streamingLink(object["url"]), !id.isEmpty, !["http", "https"].contains(protocolName) {
            // RTMP, RTSP, MMS: no link the engine fetches, but yt-dlp's downloader does, by id.
            url = streaming
            onlyYtDlp = true
        } else if object["url"] == nil, manifest == nil, fragments.isEmpty, !id.isEmpty, !["http", "https"].contains(protocolName) {
            // No link at all (the extractor hands its downloader what it needs): by id too.
            url = ""
            onlyYtDlp = true
        } else {
            // A link given but refused (file:, data:, …) drops the format, even with a manifest.
            return nil
        }
        var headers: [HeaderField] = []
        if let fields = object["http_headers"] as? [String: Any] {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }).prefix(headerLimit) {
                guard let value = value as? String, let field = try? HeaderField(name: name, value: value) else { continue }
                headers.append(field)
            }
        }
        var format = Format(id: id, url: url, protocolName: protocolName,
                            ext: text(object["ext"], limit: 10), vcodec: text(object["vcodec"], limit: 100),
                            acodec: text(object["acodec"], limit: 100),
                            height: number(object["height"]).flatMap { $0 > 0 && $0 < 100_000 ? Int($0) : nil },
                            tbr: number(object["tbr"]).flatMap { $0 > 0 && $0 < 1e9 ? $0 : nil },
                            httpHeaders: headers, fragments: fragments, fragmentBaseURL: base, manifestURL: manifest)
        format.fragmentDurations = durations
        format.cookies = text(object["cookies"], limit: 16 << 10)
        format.abr = number(object["abr"]).flatMap { $0 > 0 && $0 < 1e7 ? $0 : nil }
        format.filesize = (number(object["filesize"]) ?? number(object["filesize_approx"])).flatMap { $0 > 0 && $0 < 1e15 ? Int64($0) : nil }
        format.language = text(object["language"], limit: 35)
        let impersonate = object["impersonate"].map { !($0 is NSNull) && ($0 as? Bool) != false } ?? false
        format.needsYtDlp = onlyYtDlp || impersonate || (object["request_data"].map { !($0 is NSNull) } ?? false)
        return format
    }

    private static func entry(_ object: [String: Any]) -> Entry? {
        guard let url = link(object["url"]) ?? link(object["webpage_url"]) else { return nil }
        return Entry(id: text(object["id"], limit: 200), title: text(object["title"], limit: titleLimit), url: url,
                     duration: number(object["duration"]).flatMap { $0 >= 0 && $0 < 1e9 ? $0 : nil })
    }

    /// A string field, control characters removed, at most `limit` characters; nil when empty.
    static func text(_ value: Any?, limit: Int) -> String? {
        guard let value = value as? String else { return nil }
        var kept = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where scalar.value >= 0x20 && !(0x7f...0x9f).contains(scalar.value)
            && !(0x2028...0x202e).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value) {
            kept.append(scalar)
            if kept.count >= limit * 4 { break }
        }
        let text = String(String(kept).prefix(limit)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// A number field (JSON numbers only, finite).
    static func number(_ value: Any?) -> Double? {
        guard let value = value as? NSNumber else {
            return nil
        }
        let double = value.doubleValue
        return double.isFinite ? double : nil
    }

    /// Schemes of streaming protocols yt-dlp's own downloader fetches (through ffmpeg or
    /// rtmpdump) and the engine never does.
    static let streamingSchemes: Set<String> = ["rtmp", "rtmpe", "rtmps", "rtmpt", "rtmpte", "rtmpts", "rtsp", "rtsps",
                                                "mms", "mmsh", "mmst", "srt"]

    /// A streaming protocol's link (`rtmp://host/app/stream`), only for yt-dlp to use: a
    /// scheme of `streamingSchemes`, a host, no control character; nil for any other.
    static func streamingLink(_ value: Any?) -> String? {
        guard let text = value as? String, text.utf8.count <= linkLimit, let colon = text.range(of: "://"),
              streamingSchemes.contains(text[..<colon.lowerBound].lowercased()),
              text[colon.upperBound...].first.map({ $0 != "/" }) == true,
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f && !(0x80...0x9f).contains($0.value) })
        else { return nil }
        return text
    }

    /// An absolute http or https link as libcurl reads it; nil for any other.
    static func link(_ value: Any?) -> String? {
        guard let text = value as? String, text.utf8.count <= linkLimit else { return nil }
        let lower = text.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        return try? WebAddress.validate(text)
    }
}

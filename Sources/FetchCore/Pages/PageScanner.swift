import Foundation

/// What a web page offers: its videos in page order, its title, and the same-site frames whose
/// pages may hold more. Reads, never runs: no script is evaluated, no request is made here.
///
/// The places a page names its media, each a way sites really write it:
/// - `<video src>`, `<audio src>`, and their `<source src type>` children;
/// - `<a href>` (also `<a download>`) to a file whose name is a media one;
/// - `og:video`, `og:video:url`, `og:video:secure_url`, `twitter:player:stream`;
/// - JSON-LD `VideoObject`s (`contentUrl`, `embedUrl` when it names media), anywhere in a
///   `@graph` or an array;
/// - http(s) links to media files written in scripts, JSON and `data-*` attributes (a player's
///   config, video.js `data-setup`), also with `\/` escapes.
/// Each link is resolved against the page (and its `<base href>`), only http and https count,
/// and one found several ways counts once, at its first place, with what every place said.
struct PageScanner {
    struct Scan: Equatable {
        var videos: [PageVideo] = []
        /// What the page calls itself: the JSON-LD name of its one video, else `og:title` or
        /// `<title>` without a trailing site name (with several videos, a JSON-LD name is its
        /// video's own).
        var title: String?
        /// Same-site `<iframe src>`s, absolute, for a scanner to read one level deep.
        var frames: [String] = []
    }

    /// Videos a page may offer at most: the first ones count.
    static let videoLimit = 200
    /// Frames read at most.
    static let frameLimit = 5
    /// Bytes of one JSON-LD block read at most.
    static let jsonLimit = 1 << 20

    /// The extensions of media files, and which are streams.
    static let fileExtensions: Set<String> = ["mp4", "m4v", "webm", "mkv", "mov", "m4a", "mp3", "ogg", "ogv", "oga", "opus"]
    static let streamExtensions: Set<String> = ["m3u8", "mpd"]

    private let page: String
    private var base: String
    private var scan = Scan()
    private var indexByURL: [String: Int] = [:]
    private var ogTitle: String?
    private var htmlTitle: String?
    private var jsonTitle: String?
    /// JSON-LD `VideoObject`s read: the name of one is the page's, of several each video's own.
    private var jsonVideos = 0

    /// Scans `html`, read from `page` (its address after redirects).
    static func scan(_ html: HTMLPage, page: String) -> Scan {
        var scanner = PageScanner(page: page)
        scanner.read(html)
        return scanner.scan
    }

    private init(page: String) {
        self.page = page
        base = page
    }

    private mutating func read(_ html: HTMLPage) {
        for element in html.elements where element.name == "base" {
            if let href = element["href"], let resolved = RelativeLink.resolve(href, against: page) { base = resolved }
            break
        }
        for element in html.elements { read(element, in: html) }
        // A JSON-LD video's name is the page's only when it is the page's one video.
        scan.title = PageTitle.clean(jsonVideos == 1 && scan.videos.count == 1 ? jsonTitle : nil) ?? PageTitle.withoutSiteName(ogTitle) ?? PageTitle.withoutSiteName(htmlTitle)
    }

    private mutating func read(_ element: HTMLPage.Element, in html: HTMLPage) {
        switch element.name {
        case "title":
            if htmlTitle == nil { htmlTitle = element.text }
        case "video", "audio":
            let title = element["title"] ?? element["aria-label"]
            if let src = element["src"] { add(src, type: element["type"], title: title, thumbnail: element["poster"]) }
        case "source":
            let parent = element.mediaParent.map { html.elements[$0] }
            let title = parent.flatMap { $0["title"] ?? $0["aria-label"] } ?? element["title"]
            // A `<source>` of a `<picture>` is an image.
            if let parent, let src = element["src"] { add(src, type: element["type"], title: title, thumbnail: parent["poster"]) }
        case "a":
            if let href = element["href"], Self.mediaKind(of: href) != nil {
                add(href, type: element["type"], title: element["title"] ?? element["aria-label"])
            }
        case "meta":
            let key = (element["property"] ?? element["name"])?.lowercased()
            guard let key, let content = element["content"] else { break }
            if ["og:video", "og:video:url", "og:video:secure_url", "twitter:player:stream"].contains(key) {
                add(content, type: nil, title: nil)
            } else if key == "og:title", ogTitle == nil {
                ogTitle = content
            }
        case "iframe":
            if let src = element["src"], let frame = RelativeLink.resolve(src, against: base), isSameSite(frame),
               frame != page, !scan.frames.contains(frame), scan.frames.count < Self.frameLimit {
                scan.frames.append(frame)
            }
        case "script":
            let type = element["type"]?.lowercased() ?? ""
            if type == "application/ld+json" {
                readJSONLD(element.text)
            } else if type.isEmpty || type.contains("javascript") || type.contains("json") || type == "module" {
                for link in ScriptLinks.find(in: element.text) { add(link, type: nil, title: nil) }
            }
        default:
            break
        }
        // In a stable order (a dictionary has none).
        for name in element.attributes.keys.filter({ $0.hasPrefix("data-") }).sorted() {
            for link in ScriptLinks.find(in: element.attributes[name]!) { add(link, type: nil, title: nil) }
        }
    }

    private mutating func readJSONLD(_ text: String) {
        guard text.utf8.count <= Self.jsonLimit,
              let json = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return }
        for object in JSONLDVideos.find(in: json) {
            let link = object.contentURL ?? object.embedURL.flatMap { Self.mediaKind(of: $0) != nil ? $0 : nil }
            guard let link else { continue }
            if jsonTitle == nil { jsonTitle = object.name }
            jsonVideos += 1
            add(link, type: nil, title: object.name, duration: object.duration, thumbnail: object.thumbnail)
        }
    }

    /// Adds the media at `link`, or tells what it knows to the same media found before.
    private mutating func add(_ link: String, type: String?, title: String?, duration: Double? = nil, thumbnail: String? = nil) {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let resolved = RelativeLink.resolve(trimmed, against: base),
              let url = try? WebAddress.validate(resolved) else { return }
        let title = PageTitle.clean(title)
        let picture = thumbnail.flatMap { RelativeLink.resolve($0, against: base) }
        if let index = indexByURL[url] {
            scan.videos[index].title = scan.videos[index].title ?? title
            scan.videos[index].duration = scan.videos[index].duration ?? duration
            scan.videos[index].thumbnail = scan.videos[index].thumbnail ?? picture
            return
        }
        guard scan.videos.count < Self.videoLimit else { return }
        let typedStream = type.map { $0.lowercased().contains("mpegurl") || $0.lowercased().contains("dash+xml") } ?? false
        let kind: PageVideo.Kind = typedStream ? .stream : Self.mediaKind(of: url) ?? .file
        indexByURL[url] = scan.videos.count
        scan.videos.append(PageVideo(url: url, kind: kind, title: title, duration: duration, thumbnail: picture))
    }

    /// What a link's file name says it is: a stream, a media file, or nothing (nil).
    static func mediaKind(of link: String) -> PageVideo.Kind? {
        var path = Substring(link)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        let ext = path[path.index(after: dot)...].lowercased()
        if streamExtensions.contains(ext) { return .stream }
        return fileExtensions.contains(ext) ? .file : nil
    }

    private func isSameSite(_ url: String) -> Bool {
        guard let one = try? URLParts(url), let other = try? URLParts(page) else { return false }
        return HostName.site(of: one.host) == HostName.site(of: other.host)
    }
}

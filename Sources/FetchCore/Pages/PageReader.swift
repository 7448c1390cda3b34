import Foundation
import ThreadKit

/// What a web page offers, read with the context a download carries: its videos, its title,
/// and the context its media must be fetched with.
public struct PageFinding: Sendable, Equatable {
    /// The page's address after its redirects (never with a password).
    public var page: String
    public var title: String?
    /// In page order: the page's own, then its same-site frames'.
    public var videos: [PageVideo]
    /// The download's context, with what the page added: the cookies its answers set, the page
    /// as Referer. The hand-given parts stay bound to the link's host as before.
    public var context: RequestContext
    /// What site support read, when the scanner found nothing: the one video's answer (nil for
    /// a playlist), the entries it left out past its limit, and why it found none.
    var site: SiteMedia?
    public var entriesLeftOut = 0
    /// Why the page offers no video when site support was asked (or is missing).
    public var siteFailure: DownloadError?

    /// The name the `index`th video is saved under before its answer says more: its own title,
    /// else the page's (numbered when the page has several videos), else the page's last path
    /// segment; with the media's extension when its link names one.
    public func name(of index: Int) -> String {
        let video = videos[index]
        var stem = title(of: index)
        if video.kind == .file, let segment = WebAddress.lastPathSegment(of: video.url),
           let ext = VideoName.fileExtension(of: segment), PageScanner.fileExtensions.contains(ext) {
            stem += "." + ext
        }
        return stem
    }

    /// What the `index`th video is called: its own title, else the page's (numbered when the
    /// page has several videos), else the page's last path segment.
    public func title(of index: Int) -> String {
        if let own = videos[index].title { return own }
        guard let title else { return StreamLink.title(of: page) }
        return videos.count > 1 ? "\(title) \(index + 1)" : title
    }
}

/// Reads a web page for the videos it offers (`PageScanner`), and its same-site frames one level
/// deep. Blocks on the network: never on the main thread.
public enum PageReader {
    /// Bytes of a page read at most: a longer page is read as its first ones.
    public static let byteLimit = 5 << 20

    /// - Parameters:
    ///   - url: the page's link (`WebAddress.validate`d; it may carry credentials).
    ///   - context: what the page is fetched with (a download's cookies, headers, proxy).
    /// - Throws: the network's or the server's error, `.stopped` when `stop` was raised.
    static func read(_ url: String, context: RequestContext, options: DownloadOptions,
                     stop: StopSignal) throws(RunHalt) -> PageFinding {
        var options = options
        options.context = context
        options.origin = options.origin ?? url
        let fetch = ResourceFetch(options: options, stop: stop, cutAt: byteLimit)
        let answer = try fetch.get(url)
        var cookies = answer.cookies
        // A link that is itself the media (or a playlist) is the one video it offers; a PDF, a
        // program or an archive offers none. Text is read as a page (a fragment of HTML served
        // without its `<html>` sniffs as text).
        let kind = answer.body.withUnsafeBytes { MediaSniffer.document(contentType: answer.contentType, firstBytes: $0) }
        guard kind == .webPage || kind == .text || kind == .xml else {
            let own: [PageVideo] = switch kind {
            case nil: [PageVideo(url: url, kind: .file)]
            case .playlist?, .manifest?: [PageVideo(url: url, kind: .stream)]
            default: []
            }
            var mediaContext = context
            mediaContext.cookies = Self.merged(context.cookies, cookies)
            return PageFinding(page: answer.finalURL, title: nil, videos: own, context: mediaContext)
        }
        var scan = Self.scan(answer)
        for frame in scan.frames {
            // A frame that fails is a frame without videos; the page's own still count.
            guard let inner = try? fetch.get(frame) else {
                if stop.isRaised { throw .stopped }
                continue
            }
            cookies += inner.cookies
            let found = Self.scan(inner)
            for video in found.videos where !scan.videos.contains(where: { $0.url == video.url }) && scan.videos.count < PageScanner.videoLimit {
                scan.videos.append(video)
            }
        }
        var mediaContext = context
        mediaContext.cookies = Self.merged(context.cookies, cookies)
        mediaContext.referer = answer.finalURL
        var finding = PageFinding(page: answer.finalURL, title: scan.title, videos: scan.videos, context: mediaContext)
        if finding.videos.isEmpty {
            // Nothing the scanner can see: site support reads it, with the page's cookies.
            let site = try SiteFinder.find(url, context: mediaContext, options: options, stop: stop)
            finding.videos = site.videos
            finding.title = site.title ?? finding.title
            finding.site = site.media
            finding.entriesLeftOut = site.leftOut
            finding.siteFailure = site.failure
        }
        return finding
    }

    /// Finds what `url` offers, for a person to choose from (`fetchplay --list-videos`, the
    /// window's chooser).
    ///
    /// - Returns: nil when `stop` was raised; a page with no video is a finding with none.
    /// - Throws: the link's, the network's or the server's error.
    public static func find(at text: String, options: DownloadOptions = .init(),
                            stop: StopSignal = StopSignal()) throws(DownloadError) -> PageFinding? {
        let url = try WebAddress.validate(text)
        return try RunHalt.unlessStopped { () throws(RunHalt) in try read(url, context: options.context, options: options, stop: stop) }
    }

    private static func scan(_ answer: ResourceFetch.Answer) -> PageScanner.Scan {
        PageScanner.scan(HTMLPage(answer.body, charset: charset(of: answer.contentType)), page: answer.finalURL)
    }

    /// The `charset` parameter of a `Content-Type`, if any.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The context's cookies and the ones the page set: a cookie the page set replaces one of
    /// the same name, domain and path (as a browser's store does).
    private static func merged(_ kept: [Cookie], _ set: [Cookie]) -> [Cookie] {
        var cookies = kept
        for cookie in set {
            cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            cookies.append(cookie)
        }
        return cookies
    }
}

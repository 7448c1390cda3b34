import Foundation
import Localization

/// Why a download stopped, as a value the window and the command line can show.
///
/// Every case has one sentence a person can act on (`message`). The partial file, if any, is
/// never touched by an error.
public enum DownloadError: Error, Sendable, Equatable {
    /// The text is not a URL at all.
    case invalidURL(String)
    /// The text names a file on this computer (a path, `~/…`, a file name), not a link.
    /// Nothing was requested.
    case localFile(LocalPath)
    /// A URL with a scheme other than http or https (also as a redirect target).
    case unsupportedScheme(String)
    /// The server answered with an error status.
    case httpStatus(code: Int, reason: String)
    case hostNotFound(String)
    case connectionRefused(String)
    /// The proxy could not be found or reached, or refused the request (`proxy`: its host and
    /// port, never its password).
    case proxyFailed(proxy: String, detail: String)
    /// The server stopped sending and the retries ran out.
    case stalled
    case connectionLost(String)
    case tooManyRedirects
    case tls(String)
    /// The disk is full; the download is paused with its partial intact.
    case diskFull
    /// The bytes still to come (`bytes`) need more room than the disk has (`available`).
    case tooLarge(bytes: Int64, available: Int64)
    /// Reading or writing the cache failed for another reason.
    case fileSystem(String)
    /// Another Fetchplay is already downloading this URL.
    case busy
    /// The link answers with a document (a web page, a PDF...), not media; nothing was kept.
    case notAVideo(DocumentKind)
    /// A web page that offers this many videos: which to save is a person's choice (the
    /// window's chooser, `--pick`, a `PAGE#video-N` link). Nothing was kept.
    case severalVideos(Int)
    /// A `PAGE#video-N` link whose page offers fewer than N videos (now).
    case notOnPage(number: Int, count: Int)
    /// A page neither the scanner nor site support can read because there is no site support:
    /// the sentence says how to install it.
    case needsSiteSupport
    /// Site support (yt-dlp) could not read the page or found nothing to save: its sentence.
    case siteFailed(String)
    /// An HLS presentation that cannot be saved (live, DRM, an invalid playlist); nothing kept.
    case refusedStream(HLSRefusal)
    /// A DASH presentation that cannot be saved (live, DRM, a bad or hostile manifest); nothing kept.
    case refusedManifest(DASHRefusal)
    /// An HLS presentation's segments are all on disk but GStreamer could not join them.
    case remuxFailed(String)
    /// A download that saves only the audio finished, and its audio track could not be copied
    /// out (GStreamer's reason); the whole video is kept.
    case audioNotSaved(String)
    /// The server sent more bytes than it announced, or a reply that cannot be used.
    case badResponse(String)
    /// Any other libcurl failure, with libcurl's own words.
    case other(String)

    /// One sentence a person can act on.
    public var message: String {
        switch self {
        case .invalidURL(let text):
            // TRANSLATORS: %1$@ is the text that was entered instead of a link.
            String(format: tr("“%1$@” is not a web address; paste a link that starts with http:// or https://."), text)
        case .localFile(let local) where local.isFile:
            // TRANSLATORS: %1$@ is a path; %2$@ the command that plays it (not to translate).
            String(format: tr("“%1$@” is a file on this computer, not a link; to play it, run: %2$@"), local.typed,
                   "fetchplay " + ShellWord.quoted(local.path))
        case .localFile(let local):
            // TRANSLATORS: %1$@ is the path that was entered instead of a link.
            String(format: tr("“%1$@” is a path on this computer, not a link, and there is no file there; paste a link that starts with http:// or https://."), local.typed)
        case .unsupportedScheme(let scheme):
            // TRANSLATORS: %1$@ is the scheme of the link, such as ftp or file.
            String(format: tr("Fetchplay only downloads http and https links, not %1$@:."), scheme)
        case .httpStatus(let code, let reason):
            // TRANSLATORS: %1$ld is an HTTP status such as 404, %2$@ its reason phrase from the
            // server, in English (Not Found).
            String(format: code >= 500 ? tr("The server answered %1$ld %2$@; try again later.")
                                       : tr("The server answered %1$ld %2$@; check the link."), code, reason)
        case .hostNotFound(let host):
            String(format: tr("The host %1$@ could not be found; check the link and your network connection."), host)
        case .connectionRefused(let host):
            // TRANSLATORS: %1$@ is a host name, such as example.com.
            String(format: tr("%1$@ refused the connection; check the link or try again later."), host)
        case .proxyFailed(let proxy, let detail):
            // TRANSLATORS: %1$@ is the proxy's host and port, %2$@ libcurl's words, in English.
            String(format: tr("The proxy %1$@ could not be used (%2$@); check the proxy setting, then press Continue."), proxy, detail)
        case .stalled:
            tr("The server stopped sending data; press Continue to try again.")
        case .connectionLost(let detail):
            // TRANSLATORS: %1$@ says how, often in English from libcurl.
            String(format: tr("The connection was lost (%1$@); press Continue to try again."), detail)
        case .tooManyRedirects:
            tr("The link redirects too many times; check it in a browser.")
        case .tls(let detail):
            String(format: tr("The secure connection could not be verified (%1$@)."), detail)
        case .diskFull:
            tr("The disk is full; free some space, then press Continue.")
        case .tooLarge(let bytes, let available):
            // TRANSLATORS: two sizes, such as 4.2 GB and 900 MB.
            String(format: tr("The video needs %1$@ but the disk has only %2$@ free; free some space, then press Continue."),
                   ByteFormat.string(bytes), ByteFormat.string(available))
        case .fileSystem(let detail):
            String(format: tr("The video could not be saved: %1$@."), detail)
        case .busy:
            tr("This video is already being downloaded by another Fetchplay window or process.")
        case .notAVideo(let kind):
            kind.message
        case .severalVideos(let count):
            // TRANSLATORS: %1$ld is how many videos the page offers (2 or more).
            String(format: trn("This page offers %1$ld video; choose which to save.", "This page offers %1$ld videos; choose which to save.", count), count)
        case .notOnPage(let number, let count):
            // TRANSLATORS: %1$ld is the video asked for, %2$ld how many the page offers now.
            String(format: tr("This page no longer offers video %1$ld (it has %2$ld); paste the page again to choose."), number, count)
        case .needsSiteSupport:
            // TRANSLATORS: keep --update-site-support as it is.
            tr("No video found on this page; site support (yt-dlp) reads many more sites: run fetchplay --update-site-support, or install it in Preferences, then try again.")
        case .siteFailed(let sentence):
            sentence
        case .refusedStream(let refusal):
            refusal.message
        case .refusedManifest(let refusal):
            refusal.message
        case .remuxFailed(let detail):
            // TRANSLATORS: %1$@ is GStreamer's reason.
            String(format: tr("The video's segments are saved but could not be joined into one video (%1$@); press Continue to try again."), detail)
        case .audioNotSaved(let detail):
            // TRANSLATORS: %1$@ is GStreamer's reason, such as "the file has no audio track".
            String(format: tr("The video is saved, but its audio alone could not be (%1$@); the whole video is kept."), detail)
        case .badResponse(let detail):
            String(format: tr("The server sent an unusable answer: %1$@."), detail)
        case .other(let detail):
            String(format: tr("The download failed: %1$@."), detail)
        }
    }
}

/// A word a POSIX shell reads back as itself: as it is when it is plain, else in single quotes.
enum ShellWord {
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._-+,:@%=".unicodeScalars.contains($0))
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

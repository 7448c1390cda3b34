/// Why a download stopped, as a value the window and the command line can show.
///
/// Every case has one sentence a person can act on (`message`). The partial file, if any, is
/// never touched by an error.
public enum DownloadError: Error, Sendable, Equatable {
    /// The text is not a URL at all.
    case invalidURL(String)
    /// A URL with a scheme other than http or https (also as a redirect target).
    case unsupportedScheme(String)
    /// The server answered with an error status.
    case httpStatus(code: Int, reason: String)
    case hostNotFound(String)
    case connectionRefused(String)
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
    /// The server sent more bytes than it announced, or a reply that cannot be used.
    case badResponse(String)
    /// Any other libcurl failure, with libcurl's own words.
    case other(String)

    /// One sentence a person can act on.
    public var message: String {
        switch self {
        case .invalidURL(let text):
            "“\(text)” is not a web address; paste a link that starts with http:// or https://."
        case .unsupportedScheme(let scheme):
            "Fetchplay only downloads http and https links, not \(scheme):."
        case .httpStatus(let code, let reason):
            "The server answered \(code) \(reason)" + (code >= 500 ? "; try again later." : "; check the link.")
        case .hostNotFound(let host):
            "The host \(host) could not be found; check the link and your network connection."
        case .connectionRefused(let host):
            "\(host) refused the connection; check the link or try again later."
        case .stalled:
            "The server stopped sending data; press Continue to try again."
        case .connectionLost(let detail):
            "The connection was lost (\(detail)); press Continue to try again."
        case .tooManyRedirects:
            "The link redirects too many times; check it in a browser."
        case .tls(let detail):
            "The secure connection could not be verified (\(detail))."
        case .diskFull:
            "The disk is full; free some space, then press Continue."
        case .tooLarge(let bytes, let available):
            "The video needs \(ByteFormat.string(bytes)) but the disk has only \(ByteFormat.string(available)) free; free some space, then press Continue."
        case .fileSystem(let detail):
            "The video could not be saved: \(detail)."
        case .busy:
            "This video is already being downloaded by another Fetchplay window or process."
        case .notAVideo(let kind):
            kind.message
        case .badResponse(let detail):
            "The server sent an unusable answer: \(detail)."
        case .other(let detail):
            "The download failed: \(detail)."
        }
    }
}

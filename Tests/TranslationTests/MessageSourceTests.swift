import FetchCore
import FetchPlayer
import Testing

/// Every message the engine, the player and the library show a person comes from the template:
/// a sentence built outside tr() would reach Chinese readers in English.
///
/// The switches name every case without a `default`, so a new case does not compile here
/// until it has a sample below.
struct MessageSourceTests {
    static let downloadErrors: [DownloadError] = [
        .invalidURL("not a link"), .unsupportedScheme("ftp"), .httpStatus(code: 404, reason: "Not Found"),
        .httpStatus(code: 503, reason: "Service Unavailable"), .hostNotFound("example.invalid"),
        .connectionRefused("127.0.0.1"), .proxyFailed(proxy: "proxy.example:3128", detail: "Connection refused"), .stalled, .connectionLost("Recv failure"), .tooManyRedirects,
        .tls("certificate has expired"), .diskFull, .tooLarge(bytes: 4_200_000_000, available: 900_000_000),
        .fileSystem("cannot encode a record"), .busy, .notAVideo(.webPage), .notAVideo(.pdf), .notAVideo(.json),
        .notAVideo(.xml), .notAVideo(.text), .notAVideo(.playlist), .notAVideo(.manifest),
        .notAVideo(.program), .severalVideos(3), .notOnPage(number: 4, count: 2), .notAVideo(.archive), .notAVideo(.script), .notAVideo(.launcher), .notAVideo(.package),
        .localFile(LocalPath(typed: "~/Videos/clip.mp4", path: "/home/user/Videos/clip.mp4", isFile: true)),
        .localFile(LocalPath(typed: "clips/video.mp4", path: "/home/user/clips/video.mp4", isFile: false)),
        .badResponse("a partial answer without Content-Range"), .other("libcurl could not start"),
        .refusedStream(.live), .refusedStream(.protected("SAMPLE-AES")), .refusedStream(.invalid("it lists no segments")),
        .remuxFailed("Internal data stream error."), .audioNotSaved("the file has no audio track"),
        .refusedManifest(.live), .refusedManifest(.protected("Widevine")), .refusedManifest(.notXML("Start tag expected")),
        .refusedManifest(.notMPD("html")), .refusedManifest(.declarations), .refusedManifest(.unsafeLink("file:///etc/passwd")),
        .refusedManifest(.tooLarge("more than 100000 segments")), .refusedManifest(.invalid("a Representation has no segments")),
        .needsSiteSupport, .siteFailed(SiteExtractionError.noVideo.message), .siteFailed(SiteExtractionError.failed("Unsupported URL").message),
    ]

    static let libraryErrors: [LibraryError] = [.notFound, .inUse, .replaced, .fileSystem("EACCES")]

    static let playerErrors: [PlayerError] = [
        .fileNotFound(path: "/videos/clip.webm"), .notAVideo, .corrupt(detail: "moov atom not found"),
        .missingCodec("VP9 decoder"), .unreadable(detail: "Permission denied"), .notSubtitles(path: "/videos/clip.srt"),
        .notDownloaded, .timedOut,
        .other("unknown error"),
    ]

    static let template = try! MessageCatalog(path: CatalogueTests.template)

    @Test(arguments: downloadErrors)
    func downloadErrorMessages(_ error: DownloadError) {
        switch error {
        case .invalidURL, .localFile, .unsupportedScheme, .httpStatus, .hostNotFound, .connectionRefused, .proxyFailed, .stalled,
             .connectionLost, .tooManyRedirects, .tls, .diskFull, .tooLarge, .fileSystem, .busy, .notAVideo, .severalVideos, .notOnPage, .badResponse, .other,
             .refusedStream, .refusedManifest, .remuxFailed, .audioNotSaved, .needsSiteSupport, .siteFailed:
            #expect(Self.template.produces(error.message), "not from po/fetchplay.pot: \(error.message)")
        }
    }

    @Test(arguments: libraryErrors)
    func libraryErrorMessages(_ error: LibraryError) {
        switch error {
        case .notFound, .inUse, .replaced, .fileSystem:
            #expect(Self.template.produces(error.message), "not from po/fetchplay.pot: \(error.message)")
        }
    }

    @Test(arguments: playerErrors)
    func playerErrorMessages(_ error: PlayerError) {
        switch error {
        case .fileNotFound, .notAVideo, .corrupt, .missingCodec, .unreadable, .notSubtitles, .notDownloaded, .timedOut, .other:
            #expect(Self.template.produces(error.message), "not from po/fetchplay.pot: \(error.message)")
        }
    }

    @Test func sizesAndDurations() {
        for text in [ByteFormat.string(1), ByteFormat.string(999), TimeFormat.string(42),
                     TimeFormat.string(185), TimeFormat.string(7300)] {
            #expect(Self.template.produces(text), "not from po/fetchplay.pot: \(text)")
        }
        for unit in ["kB", "MB", "GB", "TB"] { #expect(Self.template.msgids.contains(unit)) }
    }

    /// The matcher itself, so that a passing test above means something.
    @Test func theMatcherTellsFilledFormatsFromOtherText() {
        #expect(MessageCatalog.matches("127.0.0.1 refused the connection", format: "%1$@ refused the connection"))
        #expect(MessageCatalog.matches("3 min 5 s", format: "%1$ld min %2$ld s"))
        #expect(!MessageCatalog.matches("127.0.0.1 refused it", format: "%1$@ refused the connection"))
        #expect(!MessageCatalog.matches("The server answered 404 Not Found", format: "The server answered %1$ld %2$@; check the link."))
    }
}

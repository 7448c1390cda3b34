// yt-dlp's `-J` answer about a page, read as hostile input: whatever the bytes, what is kept is
// bounded and every link in it is an http(s) one, but for a format only yt-dlp's downloader
// fetches, whose link is a streaming protocol's or none, and which the engine never fetches.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let media = try? SiteMedia.parse(Data(bytes: data!, count: count)) else { return 0 }
    func isWeb(_ link: String) -> Bool { link.utf8.starts(with: "http://".utf8) || link.utf8.starts(with: "https://".utf8) }
    precondition(media.formats.count <= SiteMedia.formatLimit && media.entries.count <= SiteMedia.entryLimit)
    precondition((media.title?.count ?? 0) <= SiteMedia.titleLimit)
    for format in media.formats {
        precondition(format.fragments.allSatisfy(isWeb) && format.httpHeaders.count <= SiteMedia.headerLimit)
        precondition(isWeb(format.url) || (format.needsYtDlp && !SiteFormatChoice.isFetchable(format) && !format.id.isEmpty
                                           && (format.url.isEmpty || SiteMedia.streamingLink(format.url) == format.url)))
    }
    precondition(media.entries.allSatisfy { isWeb($0.url) } && (media.thumbnail.map(isWeb) ?? true))
    return 0
}

import Foundation

extension Cache {
    /// `ROOT/sites`: site support's private files while yt-dlp runs (`SiteExtraction`: 0700,
    /// each file 0600 and gone when it ends), and the folders of yt-dlp's own downloader.
    var sitesDirectory: String { root + "/sites" }

    /// `ROOT/sites/KEY`: yt-dlp's own downloader's folder for one link (`SiteDownload`): its
    /// `.part` files, kept between runs so that a continue goes on from them, and its record.
    func siteDownloadFolder(key: String) -> String { sitesDirectory + "/" + key }

    /// The record of that download, written when it starts: the library lists it as a partial
    /// after a quit, and Continue runs yt-dlp again on its `.part` files.
    func siteRecordPath(key: String) -> String { siteDownloadFolder(key: key) + "/" + Self.siteRecordName }

    static let siteRecordName = "record.json"

    /// The unfinished downloads of yt-dlp's own downloader.
    func siteEntries() -> [LibraryItem] {
        FileIO.names(in: sitesDirectory).filter { $0.utf8.count == 64 }.compactMap { siteEntry(key: $0) }
    }

    /// What is on disk of `key`'s download by yt-dlp: the bytes of every file it wrote (its
    /// formats' `.part` files, a format already whole), and when it last wrote one.
    func siteEntry(key: String) -> LibraryItem? {
        let folder = siteDownloadFolder(key: key)
        guard let record = loadRecord(at: siteRecordPath(key: key), key: key) else { return nil }
        var bytes: Int64 = 0
        var changed = record.created
        for name in FileIO.names(in: folder) where name != Self.siteRecordName {
            // Regular files only: a link planted there counts for nothing.
            guard let size = FileIO.size(of: folder + "/" + name) else { continue }
            bytes += size
            changed = max(changed, FileIO.modificationDate(of: folder + "/" + name) ?? changed)
        }
        return LibraryItem(url: record.url, displayName: record.displayName, isComplete: false, bytesDone: bytes,
                           total: record.total, path: folder, date: changed, failure: record.failure)
    }
}

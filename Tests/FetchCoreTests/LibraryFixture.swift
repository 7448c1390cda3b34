@testable import FetchCore
import Foundation
import TestSupport

/// A temporary cache filled by hand with what a library meets in the wild: finished videos,
/// partials, half-written records and files Fetchplay never wrote.
final class LibraryFixture: Sendable {
    let folder: TemporaryDirectory
    let cache: Cache

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-library")
        cache = try Cache(root: folder.path + "/cache")
    }

    /// A finished video of `bytes` at `url`, completed at `date`; returns its path.
    @discardableResult
    func finished(_ url: String, bytes: [UInt8], date: Date = Date(), lastPlayed: Date? = nil,
                  name: String? = nil) throws -> String {
        let key = Cache.key(for: url)
        let path = cache.videoPath(key, url: url)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var record = DownloadRecord(url: url, displayName: name ?? URL(string: url)!.lastPathComponent)
        record.total = Int64(bytes.count)
        record.durableBytes = Int64(bytes.count)
        record.etag = "\"v1\""
        record.completed = date
        record.lastPlayed = lastPlayed
        try cache.saveRecord(record, at: cache.videoRecordPath(key))
        return path
    }

    /// A partial holding the first `done` of `total` bytes; returns the partial file's path.
    @discardableResult
    func partial(_ url: String, bytes: [UInt8], total: Int) throws -> String {
        let key = Cache.key(for: url)
        let path = cache.partialPath(key, "part")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var record = DownloadRecord(url: url, displayName: URL(string: url)!.lastPathComponent)
        record.total = Int64(total)
        record.durableBytes = Int64(bytes.count)
        record.etag = "\"v1\""
        try cache.saveRecord(record, at: cache.partialPath(key, "json"))
        return path
    }

    /// A record cut off mid-write (as a crash during a non-atomic write would leave it).
    func corruptRecord(for url: String, inVideos: Bool) throws {
        let key = Cache.key(for: url)
        let path = inVideos ? cache.videoRecordPath(key) : cache.partialPath(key, "json")
        try Data("{\"url\": \"\(url)\", \"durableBy".utf8).write(to: URL(fileURLWithPath: path))
        let data = inVideos ? cache.videoPath(key, url: url) : cache.partialPath(key, "part")
        try Data(TestData.bytes(count: 1000)).write(to: URL(fileURLWithPath: data))
    }

    /// Files Fetchplay never wrote, in every folder of the cache.
    func foreignFiles() throws {
        for path in ["notes.txt", "videos/holiday.mp4", "videos/\(String(repeating: "a", count: 64)).json",
                     "partial/readme", "videos/x.json.tmp-1-2"] {
            try Data("not ours".utf8).write(to: URL(fileURLWithPath: cache.root + "/" + path))
        }
        try FileManager.default.createDirectory(atPath: cache.root + "/somebody-elses-folder",
                                                withIntermediateDirectories: true)
    }

    /// Every file under the cache root, relative to it (a lock goes with its holder: none is
    /// left once a delete or an undo is done).
    func files() -> [String] {
        (FileManager.default.enumerator(atPath: cache.root)?.allObjects as? [String] ?? []).sorted()
    }
}

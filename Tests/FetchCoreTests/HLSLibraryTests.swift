@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// An unfinished HLS presentation in the library, read from the cache folder alone as after a
/// restart: listed as a partial with its segments, why it stopped, deleted and put back whole.
struct HLSLibraryTests {
    let server: FaultServer
    let folder: TemporaryDirectory
    let clip: HLSClip
    let missing: String

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-hls-library")
        clip = try Clips.hls()
        clip.serve(on: server)
        missing = "/" + clip.segments(of: "v360")[1]
        server.serve(missing, body: [], faults: [.status(404)])
    }

    private var options: DownloadOptions {
        var options = DownloadOptions()
        options.initialBackoff = 0.05
        options.maxBackoff = 0.1
        return options
    }

    /// Downloads the 360p variant, which stops at its 404 segment with the others kept.
    private func partial() throws -> (cache: Cache, url: String) {
        let cache = try Cache(root: folder.file("cache"))
        let url = server.url("/v360/index.m3u8")
        let task = try DownloadTask(url: url, cache: cache, options: options) { _ in }
        task.start()
        guard case .failed(.httpStatus(code: 404, _)) = task.wait() else {
            Issue.record("ended \(task.state)")
            return (cache, url)
        }
        return (cache, url)
    }

    @Test func anUnfinishedPresentationIsListedAsAPartial() throws {
        let (_, url) = try partial()
        // A new cache and library, as after a restart.
        let library = Library(cache: try Cache(root: folder.file("cache")))
        let items = library.reload()
        let item = try #require(items.first { $0.url == url }, "\(items)")
        let count = clip.segments(of: "v360").count
        #expect(!item.isComplete && !item.isMissing)
        #expect(item.displayName == "index.mp4")
        #expect(item.segments?.done == count - 1 && item.segments?.count == count)
        #expect(item.bytesDone == clip.segments(of: "v360").filter { "/" + $0 != missing }.reduce(0) { $0 + Int64(clip.files[$1]!.count) })
        #expect(abs((item.fraction ?? 0) - Double(count - 1) / Double(count)) < 0.1)
        #expect(item.path.hasSuffix("/hls/" + Cache.key(for: url)))
        #expect(item.failure?.contains("404") == true, "\(item.failure ?? "no failure kept")")
        #expect(library.cache.strayFiles(known: items).isEmpty, "\(library.cache.strayFiles(known: items))")
        // A download made for the link reads nothing until it starts (the window makes it on its
        // main thread): the row shows the library's item above until then.
        let task = try DownloadTask(url: url, cache: library.cache) { _ in }
        #expect(task.state == .idle)
    }

    @Test func deletingAnUnfinishedPresentationAndUndoing() throws {
        let (cache, url) = try partial()
        let library = Library(cache: cache)
        library.reload()
        let folder = try #require(library.reload().item(url: url)).path
        let deletion = try library.delete(url: url)
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(library.reload().allSatisfy { $0.url != url })
        try library.undo(deletion)
        #expect(library.reload().item(url: url)?.segments?.done == clip.segments(of: "v360").count - 1)

        // Put back whole: once the segment is there, only it is fetched.
        server.serve(missing, body: clip.files[String(missing.dropFirst())]!, etag: "\"fixed\"")
        let task = try DownloadTask(url: url, cache: cache, options: options) { _ in }
        task.start()
        guard case .completed = task.wait() else { Issue.record("ended \(task.state)"); return }
        for segment in clip.segments(of: "v360") where "/" + segment != missing {
            #expect(server.requests(to: "/" + segment).count == 1, "\(segment)")
        }
        let done = try #require(library.reload().first { $0.url == url })
        #expect(done.isComplete && done.failure == nil)
        #expect(!FileManager.default.fileExists(atPath: folder), "the presentation's folder goes once the video is whole")
    }
}

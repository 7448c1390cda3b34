@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// DASH through the HLS saver in FetchCore alone (no remux): the variants a person is offered,
/// and the chosen Representation's bytes joined in order, exactly its init section and segments.
struct DASHDownloadTests {
    let server: FaultServer
    let folder: TemporaryDirectory
    let clip: DASHClip

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-dash")
        clip = try Clips.dash()
        clip.serve(on: server)
    }

    @Test func theVariantsOfAManifestAndTheOneChosenIsTheOneSaved() throws {
        let url = server.url("/multi/index.mpd")
        let variants = try StreamLink.variants(at: url)
        #expect(variants.map(\.height) == [360, 180], "\(variants)")
        #expect(variants.allSatisfy { $0.url == url && $0.audio.count == 1 })
        let small = try #require(variants.last)

        let cache = try Cache(root: folder.file("cache"))
        let task = try DownloadTask(url: url, cache: cache, choice: PresentationChoice(variant: small)) { _ in }
        task.start()
        let end = task.wait()
        guard case .completed(let path) = end else { Issue.record("ended \(end)"); return }
        let id = try #require(small.representation)
        let segments = clip.files.keys.filter { $0.hasPrefix("multi/chunk-stream\(id)-") }.sorted()
        // The feed ends fragmented MP4 with an empty `free` box (SegmentFeed.trailingBox).
        let expected = (["multi/init-stream\(id).m4s"] + segments).flatMap { clip.files[$0]! } + SegmentFeed.trailingBox
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected), "\(segments)")
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/multi/chunk-stream0-") }, "the other video is not fetched")
    }

    /// Subtitles saved beside the video are its own: listed in its record, not stray, deleted
    /// with it and brought back by undo.
    @Test func subtitlesBesideTheVideoGoAndComeBackWithIt() throws {
        let vtt = clip.serveSubtitled(on: server)
        let url = server.url("/tl/subtitled.mpd")
        let cache = try Cache(root: folder.file("cache"))
        let task = try DownloadTask(url: url, cache: cache) { _ in }
        task.start()
        guard case .completed(let path) = task.wait() else { Issue.record("not saved"); return }
        let subtitles = (path as NSString).deletingPathExtension + ".en.vtt"
        #expect(FileManager.default.contents(atPath: subtitles) == Data(vtt))
        let library = Library(cache: cache)
        let items = library.reload()
        #expect(items.contains { $0.url == url })
        #expect(!cache.strayFiles(known: items).contains(subtitles), "the subtitles are counted as stray")
        let deletion = try library.delete(url: url)
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: subtitles))
        try library.undo(deletion)
        #expect(FileManager.default.fileExists(atPath: path) && FileManager.default.contents(atPath: subtitles) == Data(vtt))
    }

    @Test func aLinkEndingInMPDGoesStraightToThePresentation() {
        #expect(StreamLink.isPlaylistLink("https://example.org/show/index.mpd?token=1"))
        #expect(!StreamLink.isPlaylistLink("https://example.org/show/video.mp4"))
    }
}

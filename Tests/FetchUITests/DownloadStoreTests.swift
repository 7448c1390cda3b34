@testable import FetchCore
@testable import FetchViewModel
import Foundation
import ThreadKit
import Testing
import TestSupport
@testable import FetchUI

/// Which downloads the store reports as ended (what notifications follow). Its updates are
/// coalesced on the main loop, so a small file can go from Start to finished between two: the
/// tests hold the main loop until the engine has finished, as a busy or a fast machine does.
@Suite(.serialized) @MainActor
struct DownloadStoreTests {
    let server: FaultServer
    let folder: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-session")
        let clip = try Clips.webm(seconds: 1, audio: false)
        server.serve("/small.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"small\"")
    }

    /// A store on the folder's cache; every update's ended downloads go into `ends`, in order.
    func session(_ ends: Locked<[Set<String>]>) throws -> DownloadStore {
        let session = DownloadStore(cache: try Cache(root: folder.file("cache")), presentations: .gstreamer)
        session.observe { change in if !change.ended.isEmpty { ends.withLock { $0.append(change.ended) } } }
        return session
    }

    /// Starts `url` and keeps the main loop still until the engine has finished it.
    func startUnseen(_ url: String, in session: DownloadStore) throws {
        try session.load(url)
        session.start()
        try #require(waitUntil(timeout: .seconds(20)) { session.queue.entry(url)?.state.isCompleted == true },
                     "the engine did not finish: \(String(describing: session.queue.entry(url)?.state))")
    }

    @Test func aDownloadThatFinishedBetweenTwoUpdatesHasEnded() throws {
        let url = server.url("/small.webm")
        let ended = Locked<[Set<String>]>([])
        let session = try session(ended)
        try startUnseen(url, in: session)
        #expect(runMainLoop(timeout: .seconds(5), until: { session.state.isCompleted }))
        #expect(ended.withLock { $0 } == [[url]], "no update showed it downloading, and its end was lost")
    }

    /// A finished download brings its video as the library lists it: the store lists it from
    /// that, without reading the cache folder again.
    @Test func aFinishedDownloadBringsItsLibraryItem() throws {
        let url = server.url("/small.webm")
        let session = try session(Locked([]))
        try startUnseen(url, in: session)
        let readings = session.generation
        #expect(runMainLoop(timeout: .seconds(5), until: { session.item(url: url)?.isComplete == true }))
        let item = try #require(session.item(url: url))
        #expect(item.path == session.state.completedPath)
        #expect(item == session.cache.entry(for: url), "not the item a reading of the folder lists")
        #expect(session.generation == readings, "the folder was read again")
    }

    /// Try Again on a failed HLS link: the failure before is not this run's end (the window would
    /// notify it at once, and then miss the retry's real end).
    @Test func aRetriedHLSLinkEndsWithTheRetryNotWithTheFailureBefore() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let playlist = "v360/index.m3u8", body = try #require(clip.files[playlist])
        server.serve("/" + playlist, body: body, faults: [.status(404)])
        let url = server.url("/" + playlist)
        let ends = Locked<[Set<String>]>([])
        let session = try session(ends)
        try session.load(url)
        session.start()
        #expect(runMainLoop(timeout: .seconds(20), until: { session.state.isFailed }), "\(session.state)")
        #expect(ends.withLock { $0 } == [[url]])

        server.serve("/" + playlist, body: body, etag: "\"index\"")
        session.start()
        // Downloading from Start on, whenever its thread gets going: not the failure before.
        #expect(session.state == .downloading, "\(session.state)")
        #expect(ends.withLock { $0 }.count == 1, "the last run's failure was taken for the retry's end")
        #expect(runMainLoop(timeout: .seconds(30), until: { session.state.isCompleted }), "\(session.state)")
        #expect(ends.withLock { $0 } == [[url], [url]])
    }

    /// A link known as a playlist only by its answer goes on as HLS: its end is the
    /// presentation's, reported once.
    @Test func aPlaylistKnownByItsAnswerEndsOnce() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let body = try #require(clip.files["v360/index.m3u8"])
        // Its segments' links are relative to the playlist's folder.
        server.serve("/v360/stream", body: body, etag: "\"stream\"")
        let url = server.url("/v360/stream")
        let ends = Locked<[Set<String>]>([])
        let session = try session(ends)
        try session.load(url)
        session.start()
        #expect(runMainLoop(timeout: .seconds(30), until: { session.state.isCompleted }), "\(session.state)")
        #expect(session.state.completedPath?.hasSuffix(".mp4") == true, "saved as HLS: \(session.state)")
        #expect(runMainLoop(timeout: .seconds(5), until: { !ends.withLock { $0 }.isEmpty }))
        #expect(ends.withLock { $0 } == [[url]])
    }

    /// A link deleted and added again starts its count of runs again: its finish after that is
    /// still news, whatever its runs were before.
    @Test func aLinkDeletedAndAddedAgainEndsWhenItFinishes() throws {
        let clip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 2, audio: false))))
        server.serve("/again.webm", body: clip, etag: "\"again\"", faults: [.status(404)], faultyRequests: 1)
        server.hold("/again.webm", offsets: clip.count / 2..<clip.count)
        let url = server.url("/again.webm")
        let ends = Locked<[Set<String>]>([])
        let session = try session(ends)
        try session.load(url)
        session.start()
        #expect(runMainLoop(timeout: .seconds(20), until: { session.state.isFailed }), "\(session.state)")
        // Try Again (a second run), paused on the hold, then deleted.
        session.start()
        #expect(runMainLoop(timeout: .seconds(20), until: { session.state == .downloading && session.progress?.bytesDone ?? 0 > 0 }))
        session.pause()
        #expect(runMainLoop(timeout: .seconds(10), until: { session.state == .paused }))
        #expect(session.queue.remove(url))
        #expect(runMainLoop(timeout: .seconds(5), until: { session.entries[url] == nil }))

        server.release("/again.webm")
        try session.load(url)
        session.start()
        #expect(runMainLoop(timeout: .seconds(20), until: { session.state.isCompleted }), "\(session.state)")
        #expect(runMainLoop(timeout: .seconds(5), until: { ends.withLock { $0 }.count == 2 }), "\(ends.withLock { $0 })")
    }

    @Test func startOnAVideoAlreadyInTheCacheIsNoEnd() throws {
        let url = server.url("/small.webm")
        let first = Locked<[Set<String>]>([])
        let before = try session(first)
        try startUnseen(url, in: before)
        #expect(runMainLoop(timeout: .seconds(5), until: { first.withLock { $0 } == [[url]] }))

        // A new run: the cache is read in the background, and Start only shows the video.
        let ended = Locked<[Set<String>]>([])
        let session = try session(ended)
        try startUnseen(url, in: session)
        #expect(runMainLoop(timeout: .seconds(5), until: { session.state.isCompleted }))
        runMainLoop(for: .seconds(0.2)) // any further update would come within a tick
        #expect(ended.withLock { $0 }.isEmpty, "a video found complete was reported as a download's end")
        #expect(server.requests(to: "/small.webm").count == 1, "the second Start downloaded again")
    }

    /// A second link to the same clip as `/small.webm`. Records keep whole seconds, so two
    /// finished in one second tie on date and go by link: this one sorts after the first.
    private func otherVideo() throws -> String {
        let clip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Clips.webm(seconds: 1, audio: false))))
        server.serve("/tiny.webm", body: clip, etag: "\"tiny\"")
        return server.url("/tiny.webm")
    }

    /// Downloads `url` and waits until the store lists it as a video.
    private func finish(_ url: String, in session: DownloadStore) throws {
        try startUnseen(url, in: session)
        #expect(runMainLoop(timeout: .seconds(5), until: { session.item(url: url)?.isComplete == true }))
    }

    /// The library keeps no list: a deletion refused for one video (another process writes it)
    /// brings its row back in the store, and the other one stays gone.
    @Test func aRefusedDeletionBringsItsVideoBack() throws {
        let session = try session(Locked([]))
        let first = server.url("/small.webm"), second = try otherVideo()
        try finish(first, in: session)
        try finish(second, in: session)
        let writer = try PartialLock(cache: session.cache, key: Cache.key(for: first))
        var result: (deleted: [String], refusal: LibraryError?)?
        session.delete(urls: [first, second]) { deleted, refusal in result = (deleted.map(\.url), refusal) }
        #expect(session.item(url: first) == nil && session.item(url: second) == nil, "the rows did not go at once")
        #expect(runMainLoop(timeout: .seconds(5), until: { result != nil }))
        #expect(result?.deleted == [second] && result?.refusal == .inUse)
        #expect(session.item(url: first)?.isComplete == true, "the refused video is not listed again")
        #expect(session.item(url: second) == nil)
        withExtendedLifetime(writer) {}
    }

    /// Under a size cap, a finish that goes over it evicts the least recently used video, and
    /// the store's list follows without reading the folder.
    @Test func aFinishOverTheSizeCapEvictsTheOldestVideo() throws {
        let session = try session(Locked([]))
        let first = server.url("/small.webm")
        try finish(first, in: session)
        let firstItem = try #require(session.item(url: first))
        // Room for one such video, not two.
        session.settings.sizeCap = firstItem.bytesDone + firstItem.bytesDone / 2
        let second = try otherVideo()
        let readings = session.generation
        try startUnseen(second, in: session)
        #expect(runMainLoop(timeout: .seconds(5), until: { session.item(url: second)?.isComplete == true && session.item(url: first) == nil }),
                "listed: \(session.items.map(\.url))")
        #expect(!FileManager.default.fileExists(atPath: firstItem.path), "the evicted video's file is still there")
        #expect(session.generation == readings, "the folder was read again")
    }

    /// A download yt-dlp's own downloader makes, left by a quit, is the next run's partial: its
    /// store lists it paused, named after the page, with its bytes and total, and Continue
    /// finishes it from its `.part` (a fake yt-dlp found on PATH, as the window finds one).
    @Test func aYtDlpDownloadLeftByAQuitIsListedAndContinues() throws {
        let body = TestData.bytes(count: 2 << 20, seed: 63)
        let source = try folder.write(body, to: "served.bin")
        let starts = folder.file("starts")
        try FileManager.default.createDirectory(atPath: folder.file("bin"), withIntermediateDirectories: true)
        let program = try folder.write(Array(("#!/bin/sh\n" + FakeYtDlp.script(title: "Harbour at dawn", source: source,
                                                                            total: body.count, starts: starts)).utf8),
                                       to: "bin/yt-dlp")
        chmod(program, 0o755)
        // Only this yt-dlp: none managed in the data folder, this one first on PATH.
        let saved = ["PATH", "XDG_DATA_HOME"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        defer { for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } } }
        setenv("PATH", folder.file("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
        setenv("XDG_DATA_HOME", folder.file("data"), 1)
        server.serve("/watch", body: Array("<html><head><title>A site</title></head><body></body></html>".utf8),
                     headers: [HTTPHeader("Content-Type", "text/html")])
        let page = server.url("/watch")

        let first = try session(Locked([]))
        try first.load(page)
        first.start()
        #expect(runMainLoop(timeout: .seconds(20), until: { (first.progress?.bytesDone ?? 0) >= 300_000 }),
                "\(String(describing: first.progress))")
        var stopped = false
        first.stop { stopped = true }
        #expect(runMainLoop(timeout: .seconds(10), until: { stopped }))

        let next = try session(Locked([]))
        next.reload()
        #expect(runMainLoop(timeout: .seconds(5), until: { next.videos.contains { $0.url == page } }), "not listed")
        let listed = try #require(next.videos.first { $0.url == page })
        #expect(listed.activity == .paused && listed.title == "Harbour at dawn.mp4", "\(listed)")
        #expect(listed.progress.bytesDone >= 300_000 && listed.progress.total == Int64(body.count), "\(listed.progress)")
        next.start(url: page)
        #expect(runMainLoop(timeout: .seconds(30), until: { next.item(url: page)?.isComplete == true }),
                "\(String(describing: next.entries[page]?.state))")
        let video = try #require(next.item(url: page))
        #expect(try sha256Hex(ofFile: video.path) == sha256Hex(of: body))
        let runs = try String(contentsOfFile: starts, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(runs.count == 2 && runs[0] == 0 && runs[1] >= 300_000, "went on from its .part: \(runs)")
    }
}

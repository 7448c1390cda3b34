@testable import FetchCore
import Foundation
import ThreadKit
import Synchronization
import Testing
import TestSupport

/// HLS downloads in FetchCore alone (no remux): the joined bytes must be exactly the clear
/// segments in order, whatever the server does to a segment on the way. And presentations as
/// downloads of the one store: a slot of the queue like a file, pause and continue through it,
/// a link known as a playlist only by its answer saved in the same run, one record format.
struct HLSDownloadTests {
    let server: FaultServer
    let folder: TemporaryDirectory
    let clip: HLSClip

    init() throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: "fetchplay-hls")
        clip = try Clips.hls()
        clip.serve(on: server)
    }

    private var options: DownloadOptions {
        var options = DownloadOptions()
        options.initialBackoff = 0.05
        options.maxBackoff = 0.2
        return options
    }

    private func download(_ path: String) throws -> DownloadState {
        let cache = try Cache(root: folder.file("cache"))
        let task = try DownloadTask(url: server.url(path), cache: cache, options: options) { _ in }
        task.start()
        return task.wait()
    }

    private func clearBytes(of variant: String) -> [UInt8] {
        clip.segments(of: variant).flatMap { clip.files[$0]! }
    }

    @Test func encryptedSegmentsJoinToTheClearOnes() throws {
        let end = try download("/enc/index.m3u8")
        guard case .completed(let path) = end else { Issue.record("ended \(end)"); return }
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clearBytes(of: "v360")))
        // The presentation's folder goes once the video is in place.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("cache/hls"))) ?? []
        #expect(left.isEmpty)
        #expect(server.requests(to: "/enc/key.bin").count == 1)
    }

    @Test func aSegmentDroppedMidBodyResumesWithRange() throws {
        let segment = "/" + clip.segments(of: "v360")[1]
        server.addFaults([.dropAfter(bytes: 20_000)], to: segment)
        let end = try download("/v360/index.m3u8")
        guard case .completed(let path) = end else { Issue.record("ended \(end)"); return }
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clearBytes(of: "v360")))
        let requests = server.requests(to: segment)
        #expect(requests.count == 2)
        #expect(requests.last?["range"] == "bytes=20000-")
    }

    /// A viewer's seek ahead: the segments from there come next, those skipped after them, and
    /// the video saved is whole, every segment asked for once: the one in flight at the seek is
    /// held, its connection open, while a spare connection fetches the viewer's.
    @Test func aSeekAheadFetchesTheSegmentsThereNextAndTheSkippedOnesAfter() throws {
        throttleSegments(bytesPerSecond: 150_000)
        var options = options
        options.connections = 1
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: 1, options: options)
        let url = try queue.add(server.url("/v360/index.m3u8")).url
        #expect(waitUntil(timeout: .seconds(30)) { (queue.entry(url)?.progress.segments?.done ?? 0) >= 1 })
        // The last segment (3 s to the end) is where the viewer goes; the one before it is skipped.
        let segments = clip.segments(of: "v360")
        try #require(segments.count == 4)
        try #require(queue.board(for: url)).want(seconds: 3.5)
        guard case .completed(let path) = queue.wait(for: url)?.state else { Issue.record("\(queue.entries)"); return }
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clearBytes(of: "v360")))
        let asked = server.requests.map(\.path).filter { $0.hasSuffix(".ts") }
        #expect(asked.count == segments.count && Set(asked).count == segments.count, "fetched twice: \(asked)")
        for segment in segments { #expect(server.bytesSent(of: "/" + segment) == clip.files[segment]!.count, "\(segment) sent twice") }
        let order = { (segment: String) in asked.firstIndex(of: "/" + segment) ?? -1 }
        #expect(order(segments[3]) < order(segments[2]), "the segment skipped over came first: \(asked)")
    }

    @Test func progressCountsSegmentsAndSeconds() throws {
        let cache = try Cache(root: folder.file("cache"))
        let seen = Mutex<[DownloadProgress]>([])
        let task = try DownloadTask(url: server.url("/v360/index.m3u8"), cache: cache, options: options) { event in
            if case .progress(let entry) = event { seen.withLock { $0.append(entry.progress) } }
        }
        task.start()
        #expect(task.wait() != .downloading)
        let segments = seen.withLock { $0.compactMap(\.segments) }
        #expect(segments.first?.done == 0)
        #expect(segments.last?.done == clip.segments(of: "v360").count)
        #expect(abs((segments.last?.secondsTotal ?? 0) - clip.seconds) < 0.2)
        #expect(seen.withLock { $0.last?.fraction } == 1)
    }

    @Test func anAudioRenditionIsFetchedBesideTheVariant() throws {
        let cache = try Cache(root: folder.file("cache"))
        let seen = Mutex<[SegmentProgress]>([])
        let task = try DownloadTask(url: server.url("/alt/master.m3u8"), cache: cache, options: options) { event in
            if case .progress(let entry) = event, let segments = entry.progress.segments { seen.withLock { $0.append(segments) } }
        }
        task.start()
        let end = task.wait()
        guard case .completed(let path) = end else { Issue.record("ended \(end)"); return }
        // Without a remux the video is the variant's segments joined; the audio went beside it.
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clearBytes(of: "alt/video")))
        let count = clip.segments(of: "alt/video").count + clip.segments(of: "alt/audio").count
        #expect(seen.withLock { $0.last } .map { ($0.done, $0.count) } ?? (0, 0) == (count, count))
        #expect(abs((seen.withLock { $0.last?.secondsDone } ?? 0) - clip.seconds) < 0.2)
        for segment in clip.segments(of: "alt/audio") {
            #expect(server.requests(to: "/" + segment).count == 1, "\(segment)")
        }
    }

    // MARK: Presentations as downloads of the one store

    /// Serves the 360p variant's segments slowly, so a run lasts long enough to be seen.
    private func throttleSegments(bytesPerSecond: Int) {
        for path in clip.segments(of: "v360") {
            server.serve("/" + path, body: clip.files[path]!, etag: "\"\(path.hashValue & 0xFFFF_FFFF)\"",
                         faults: [.throttle(bytesPerSecond: bytesPerSecond)])
        }
    }

    /// Every state a URL's entry showed, in order, as the store's changes report them.
    final class States: Sendable {
        private let seen = Locked<[String: [DownloadState]]>([:])
        let queue = Locked<DownloadQueue?>(nil)

        func changed(_ url: String) {
            guard let state = queue.withLock({ $0 })?.entry(url)?.state else { return }
            seen.withLock { seen in
                if seen[url]?.last != state { seen[url, default: []].append(state) }
            }
        }

        func of(_ url: String) -> [DownloadState] { seen.withLock { $0[url] ?? [] } }
    }

    private func makeQueue(maxRunning: Int, states: States) throws -> DownloadQueue {
        let queue = DownloadQueue(cache: try Cache(root: folder.file("cache")), maxRunning: maxRunning, options: options) {
            states.changed($0.url)
        }
        states.queue.withLock { $0 = queue }
        return queue
    }

    /// Adds the 360p variant to `queue` and pauses it once a segment is whole.
    private func pausedAfterASegment(_ queue: DownloadQueue) throws -> String {
        let url = try queue.add(server.url("/v360/index.m3u8")).url
        #expect(waitUntil(timeout: .seconds(30)) { (queue.entry(url)?.progress.segments?.done ?? 0) >= 1 })
        queue.pause(url)
        #expect(queue.wait(for: url) == .paused)
        return url
    }

    /// The 360p segments whole on disk in `url`'s presentation.
    private func finishedSegments(of url: String) -> [String] {
        let store = try? SegmentStore(folder: folder.file("cache/hls/" + Cache.key(for: url) + "/segments"))
        return clip.segments(of: "v360").filter { store?.location(of: StreamPiece(url: server.url("/" + $0))) != nil }
    }

    @Test func aPresentationTakesOneSlotAndAFileWaitsForIt() throws {
        throttleSegments(bytesPerSecond: 150_000)
        let file = TestData.bytes(count: 50_000, seed: 3)
        server.serve("/clip.webm", body: file, etag: "\"clip\"")
        let states = States()
        let queue = try makeQueue(maxRunning: 1, states: states)
        let playlist = try queue.add(server.url("/v360/index.m3u8")).url
        let plain = try queue.add(server.url("/clip.webm")).url
        #expect(waitUntil(timeout: .seconds(10)) { queue.runningURLs == [playlist] })
        #expect(queue.entry(plain)?.isWaiting == true, "the file ran beside the presentation: \(queue.entries)")
        #expect(waitUntil(timeout: .seconds(60)) { queue.entry(plain)?.state.completedPath != nil }, "\(queue.entries)")
        #expect(queue.entry(playlist)?.state.completedPath != nil)
        // The file reached the server only once the last segment had been served.
        let lastSegment = server.requests.lastIndex { $0.path.hasSuffix(".ts") }!
        let firstFile = server.requests.firstIndex { $0.path == "/clip.webm" }!
        #expect(firstFile > lastSegment)
        #expect(try sha256Hex(ofFile: #require(queue.entry(plain)?.state.completedPath)) == sha256Hex(of: file))
    }

    @Test func pauseAndContinueThroughTheStoreFetchNoFinishedSegmentAgain() throws {
        throttleSegments(bytesPerSecond: 150_000)
        let states = States()
        let queue = try makeQueue(maxRunning: 3, states: states)
        let url = try pausedAfterASegment(queue)
        let finished = finishedSegments(of: url)
        #expect(!finished.isEmpty)
        let before = finished.map { server.requests(to: "/" + $0).count }
        queue.start(url)
        let end = queue.wait(for: url)
        guard case .completed(let path) = end?.state else { Issue.record("ended \(String(describing: end))"); return }
        #expect(finished.map { server.requests(to: "/" + $0).count } == before, "a finished segment was fetched again")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clip.segments(of: "v360").flatMap { clip.files[$0]! }))
        #expect(states.of(url) == [.idle, .downloading, .paused, .downloading, .completed(path: path)])
        // The segments the pause cut short went on from their bytes: the continue is a new run
        // with a new store, which reads what the pause noted from disk, as after a quit.
        let cut = clip.segments(of: "v360").filter { server.requests(to: "/" + $0).count > 1 }
        #expect(!cut.isEmpty, "no segment was in flight at the pause")
        for segment in cut {
            for again in server.requests(to: "/" + segment).dropFirst() {
                #expect(again["range"]?.hasPrefix("bytes=0-") == false && again["if-range"] != nil, "\(segment) asked again: \(again)")
            }
            #expect(server.bytesSent(of: "/" + segment) <= clip.files[segment]!.count + 64 * 1024, "\(segment) sent twice")
        }
    }

    @Test func aPlaylistKnownOnlyByItsAnswerIsSavedInTheSameRun() throws {
        // Its segments' links are relative to the playlist's folder; the name says nothing.
        server.serve("/v360/stream", body: clip.files["v360/index.m3u8"]!, etag: "\"stream\"",
                     headers: [HTTPHeader("Content-Type", "application/vnd.apple.mpegurl")])
        let states = States()
        let queue = try makeQueue(maxRunning: 1, states: states)
        let url = try queue.add(server.url("/v360/stream")).url
        let end = queue.wait(for: url)
        guard case .completed(let path) = end?.state else { Issue.record("ended \(String(describing: end))"); return }
        #expect(states.of(url) == [.idle, .downloading, .completed(path: path)], "it showed another state on the way")
        #expect(queue.isPresentation(url))
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clip.segments(of: "v360").flatMap { clip.files[$0]! }))
    }

    /// One record format: a presentation's record is a `DownloadRecord` with its tracks in a
    /// part of its own; one written by an earlier version (HLS text at its top level) still
    /// continues, reading the link again and fetching no finished segment again.
    @Test func aPresentationRecordIsADownloadRecordAndAnEarlierOneContinues() throws {
        throttleSegments(bytesPerSecond: 150_000)
        let states = States()
        let queue = try makeQueue(maxRunning: 1, states: states)
        let url = try pausedAfterASegment(queue)
        let path = folder.file("cache/hls/" + Cache.key(for: url) + "/presentation.json")
        let record = try DownloadRecord.decoded(from: Data(contentsOf: URL(fileURLWithPath: path)))
        let part = try #require(record.presentation, "not a presentation's record")
        #expect(record.url == url && record.contentType == "video/mp4" && part.variant == nil)
        // As versions before the one format wrote it.
        #expect(part.tracks.count == 1 && part.tracks[0].segments.count == clip.segments(of: "v360").count)
        let earlier: [String: String] = ["url": url, "mediaURL": part.mediaURL, "mediaPlaylist": "#EXTM3U\n"]
        try JSONSerialization.data(withJSONObject: earlier).write(to: URL(fileURLWithPath: path))
        let finished = finishedSegments(of: url)
        #expect(!finished.isEmpty)
        let before = finished.map { server.requests(to: "/" + $0).count }
        queue.start(url)
        guard case .completed(let video) = queue.wait(for: url)?.state else { Issue.record("\(queue.entries)"); return }
        #expect(try sha256Hex(ofFile: video) == sha256Hex(of: clip.segments(of: "v360").flatMap { clip.files[$0]! }))
        #expect(finished.map { server.requests(to: "/" + $0).count } == before, "a finished segment was fetched again")
        #expect(server.requests(to: "/v360/index.m3u8").count == 2, "the earlier record's link was not read again")
    }
}

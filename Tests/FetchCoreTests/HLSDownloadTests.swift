@testable import FetchCore
import Foundation
import Synchronization
import Testing
import TestSupport

/// HLS downloads in FetchCore alone (no remux): the joined bytes must be exactly the clear
/// segments in order, whatever the server does to a segment on the way.
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

    @Test func progressCountsSegmentsAndSeconds() throws {
        let cache = try Cache(root: folder.file("cache"))
        let seen = Mutex<[DownloadProgress]>([])
        let task = try DownloadTask(url: server.url("/v360/index.m3u8"), cache: cache, options: options) { event in
            if case .progress(let progress) = event { seen.withLock { $0.append(progress) } }
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
            if case .progress(let progress) = event, let segments = progress.segments { seen.withLock { $0.append(segments) } }
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
}

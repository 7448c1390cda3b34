import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` on HLS as encoders write it today: fragmented MP4 behind `EXT-X-MAP`
/// (separate files and one file by byte range, H.264 and H.265, video and audio in one stream or
/// audio as a rendition of its own), byte-ranged MPEG-TS and Apple-style masters. Each saved MP4
/// must have the right duration and every packet of the source, and decode without one error
/// (GStreamer's discoverer and ffmpeg both read it); bad init sections and fragments end with
/// one sentence, the segments kept.
struct HLSFragmentedCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    let clip: HLSFragmentedClip
    var cacheDir: String { fixture.cacheDir }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-cli-fmp4")
        clip = try Clips.fragmentedHLS()
        clip.serve(on: server)
    }

    private func download(_ path: String, name: String = "run") throws -> FetchplayProcess {
        try fixture.download(server.url(path), name: name)
    }

    /// The saved MP4: the clip's length, a video and an audio stream, `codec` video of 360
    /// lines, as many packets as the source playlist's, and a clean decode.
    ///
    /// - Parameter audioSlack: audio packets the file may lack (MPEG-TS: the remux drops the
    ///   first AAC frames, those before the first picture, as it always has for TS).
    @discardableResult
    private func expectVideo(_ run: FetchplayProcess, codec: String = "h264", source: String,
                             sourceAudio: String? = nil, audioSlack: Int = 0) throws -> String {
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix(cacheDir + "/videos/") && path.hasSuffix(".mp4"), "\(path)")
        let media = try DiscoveredMedia.probe(path)
        #expect(abs(media.duration - clip.seconds) < 0.1, "duration \(media.duration)")
        #expect(media.videoStreams == 1 && media.audioStreams == 1, "\(media)")
        #expect(media.height == 360 && media.seekable)
        let saved = try FFprobe.packets(path)
        let savedVideo = saved.first { $0.kind == "video" }, savedAudio = saved.first { $0.kind == "audio" }
        #expect(savedVideo?.codec == codec && savedAudio?.codec == "aac", "\(saved)")
        // Every packet of the source, none made up: the streams are copied, not re-encoded.
        let video = try FFprobe.packets(clip.folder + "/" + source).first { $0.kind == "video" }
        let audio = try FFprobe.packets(clip.folder + "/" + (sourceAudio ?? source)).first { $0.kind == "audio" }
        #expect(savedVideo?.count == video?.count && video?.count == Int(clip.seconds) * 30, "\(saved) \(String(describing: video))")
        let missing = (audio?.count ?? 0) - (savedAudio?.count ?? 0)
        #expect((0...audioSlack).contains(missing), "\(saved) \(String(describing: audio))")
        #expect(try FFprobe.decodeErrors(path) == "")
        return path
    }

    @Test func anInitSectionAndSeparateFragmentsWithVideoAndAudioInOneStream() throws {
        try expectVideo(try download("/sep/index.m3u8"), source: "sep/index.m3u8")
        #expect(fixture.finishedSegments().isEmpty, "the presentation's folder is gone once the video is whole")
    }

    @Test func oneFileByByteRangeIsFetchedRangeByRange() throws {
        try expectVideo(try download("/single/index.m3u8"), source: "single/index.m3u8")
        // Every range lies in one file: each asked for once, by its range.
        let ranges = server.requests(to: "/single/index.m4s").map { $0["range"] }
        #expect(eachRangeOnce(ranges), "\(ranges)")
    }

    @Test func aSecondInitSectionPartWay() throws {
        try expectVideo(try download("/remap/index.m3u8"), source: "sep/index.m3u8")
        #expect(server.requests(to: "/remap/init-b.mp4").count == 1)
    }

    @Test func anEncryptedInitSectionAndFragments() throws {
        try expectVideo(try download("/enc/index.m3u8"), source: "sep/index.m3u8")
        #expect(server.requests(to: "/enc/key.bin").count == 1)
    }

    @Test func sampleAESIsRefusedAsForTS() throws {
        server.serve("/drm/index.m3u8", body: Array("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXT-X-MAP:URI="../sep/init.mp4"
            #EXTINF:1,
            ../sep/seg000.m4s
            #EXT-X-ENDLIST

            """.utf8))
        let run = try download("/drm/index.m3u8")
        #expect(run.status == 7)
        #expect(run.standardError.contains("protected by DRM"), "\(run.standardError)")
        #expect(server.requests.allSatisfy { !$0.path.hasPrefix("/sep/") })
    }

    @Test func h265Fragments() throws {
        guard clip.hasHEVC else { return }
        try expectVideo(try download("/hevc/index.m3u8"), codec: "hevc", source: "hevc/index.m3u8")
    }

    @Test func transportStreamByByteRange() throws {
        try expectVideo(try download("/tsrange/index.m3u8"), source: "tsrange/index.m3u8", audioSlack: 2)
        let ranges = server.requests(to: "/tsrange/index.ts").map { $0["range"] }
        #expect(eachRangeOnce(ranges), "\(ranges)")
    }

    @Test func aVideoOnlyVariantWithAnAudioRenditionOfItsOwn() throws {
        try expectVideo(try download("/alt/master.m3u8"), source: "alt/video/index.m3u8", sourceAudio: "alt/audio/index.m3u8")
    }

    @Test func anAppleStyleMasterSavesItsBestSavableVariant() throws {
        let run = try download("/apple/master.m3u8")
        // E-AC-3 (the highest BANDWIDTH) goes into no MP4 GStreamer writes; the AC-3 group is the
        // same video as the AAC one: the AAC rendition it is. H.265 when there, else H.264.
        try expectVideo(run, codec: clip.hasHEVC ? "hevc" : "h264",
                        source: clip.hasHEVC ? "hevc/index.m3u8" : "alt/video/index.m3u8", sourceAudio: "alt/audio/index.m3u8")
        let asked = server.requests.map(\.path)
        #expect(!asked.contains { $0.hasPrefix("/apple/a2/") || $0.hasPrefix("/apple/a3/") || $0.hasPrefix("/apple/subs/")
                                  || $0.contains("iframe") }, "\(asked)")
    }

    @Test func sigintHalfWayThenAResumeWithRangeIntoTheOneFile() throws {
        // The one file of a byte-ranged playlist stops half-way until the process is gone.
        let body = clip.files["single/index.m4s"]!
        server.hold("/single/index.m4s", offsets: body.count / 2..<body.count)
        let run = try FetchplayProcess(["--download", server.url("/single/index.m3u8"), "--cache-dir", cacheDir],
                                       folder: folder, name: "first")
        #expect(waitUntil(timeout: .seconds(20)) { server.bytesSent(of: "/single/index.m4s") >= body.count / 2 })
        run.send(SIGINT)
        #expect(run.waitForExit(timeout: .seconds(5)))
        #expect(run.status == 128 + SIGINT, "stderr: \(run.standardError)")
        let kept = fixture.finishedSegments().count
        #expect(kept > 0, "the ranges of the first half are kept")
        let asked = server.requests(to: "/single/index.m4s").count
        server.release("/single/index.m4s")
        try expectVideo(try download("/single/index.m3u8", name: "second"), source: "single/index.m3u8")
        // Only the ranges not finished before the stop: each asked for once more, by its range,
        // from the bytes it has (one whose every byte came before the stop is finished without
        // asking); the one the server held half-way among them.
        let again = server.requests(to: "/single/index.m4s").dropFirst(asked).map { $0["range"] }
        #expect(eachRangeOnce(Array(again)), "\(again)")
        #expect(!again.isEmpty && again.count <= asked - kept, "asked \(asked), kept \(kept), again \(again)")
    }

    // MARK: Bad input

    @Test func anInitSectionThatIsNotMP4() throws {
        // A fragment where the init section should be: MP4 boxes, but no moov.
        try expectRefusal(words: "“init.mp4” is neither an MP4 initialisation nor MPEG-TS", bad: "sep/init.mp4",
                          body: clip.files["sep/seg001.m4s"]!)
    }

    @Test func anInitSectionThatIsAWebPage() throws {
        try expectRefusal(words: "“init.mp4”, listed in the playlist, is a web page, not media", bad: "sep/init.mp4",
                          body: Array("<!DOCTYPE html><html><body>Sign in</body></html>\n".utf8),
                          headers: [HTTPHeader("Content-Type", "text/html")])
    }

    @Test func aFragmentOfAnotherStream() throws {
        // seg002.m4s, its track IDs made 7 and 8: fragments of tracks the init section lacks.
        var foreign = clip.files["sep/seg002.m4s"]!
        try foreign.withUnsafeMutableBytes { bytes in
            let offsets = try #require(Self.trackIDOffsets(UnsafeRawBufferPointer(bytes)))
            #expect(offsets.count == 2)
            for (index, offset) in offsets.enumerated() { bytes[offset + 3] = UInt8(7 + index) }
        }
        try expectRefusal(words: "“seg002.m4s” does not belong to its init section: it carries track 7, 8, the init section declares 1, 2",
                          bad: "sep/seg002.m4s", body: foreign)
    }

    @Test func aMissingInitSection() throws {
        server.serve("/sep/init.mp4", body: [], faults: [.status(404)])
        let run = try download("/sep/index.m3u8")
        #expect(run.status == 3, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("404"), "\(run.standardError)")
        #expect(server.requests(to: "/sep/init.mp4").count == 3)
        // The fragments fetched before it failed stay for a later continue.
        #expect(!fixture.finishedSegments().isEmpty)
        #expect(sentences(run).count == 1, "\(run.standardError)")
    }

    /// What the run said on stderr as errors (its warnings about retries aside).
    private func sentences(_ run: FetchplayProcess) -> [Substring] {
        run.standardError.split(separator: "\n").filter { $0.hasPrefix("fetchplay:") && !$0.hasPrefix("fetchplay: warning:") }
    }

    /// `bad` (a file of `sep/`) served as `body` ends the download with one sentence holding
    /// `words`. Its bytes wait until every other file is whole, so what is kept is known: all
    /// of them. Once the server has the right bytes, a continue fetches `bad` alone and saves
    /// the video.
    private func expectRefusal(words: String, bad: String, body: [UInt8], headers: [HTTPHeader] = []) throws {
        server.serve("/" + bad, body: body, etag: "\"bad\"", headers: headers)
        server.hold("/" + bad, offsets: 0..<body.count)
        let first = try FetchplayProcess(["--download", server.url("/sep/index.m3u8"), "--cache-dir", cacheDir],
                                         folder: folder, name: "first")
        let others = clip.media(of: "sep").count - 1
        #expect(waitUntil(timeout: .seconds(20)) { fixture.finishedSegments().count >= others })
        server.release("/" + bad)
        #expect(first.waitForExit(timeout: .seconds(20)))
        #expect(first.status == 1, "stderr: \(first.standardError)")
        let lines = sentences(first)
        #expect(lines.count == 1 && lines.first?.contains(words) == true, "\(first.standardError)")
        #expect(first.standardOutput.isEmpty)
        #expect(fixture.finishedSegments().count == others, "the segments fetched are kept")

        clip.serve(on: server)
        let media = clip.media(of: "sep")
        let before = media.map { server.requests(to: "/" + $0).count }
        try expectVideo(try download("/sep/index.m3u8", name: "second"), source: "sep/index.m3u8")
        let after = media.map { server.requests(to: "/" + $0).count }
        #expect(zip(media, zip(before, after)).allSatisfy { name, counts in counts.1 == counts.0 + (name == bad ? 1 : 0) },
                "\(before) → \(after)")
    }

    /// Where the track ID of each `moof/traf/tfhd` lies in a fragment.
    private static func trackIDOffsets(_ bytes: UnsafeRawBufferPointer) -> [Int]? {
        func boxes(_ range: Range<Int>) -> [(type: String, payload: Range<Int>)] {
            var result: [(String, Range<Int>)] = []
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                let size = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
                guard size >= 8, offset + size <= range.upperBound else { break }
                result.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), offset + 8..<offset + size))
                offset += size
            }
            return result
        }
        var offsets: [Int] = []
        for moof in boxes(0..<bytes.count) where moof.type == "moof" {
            for traf in boxes(moof.payload) where traf.type == "traf" {
                for tfhd in boxes(traf.payload) where tfhd.type == "tfhd" { offsets.append(tfhd.payload.lowerBound + 4) }
            }
        }
        return offsets.isEmpty ? nil : offsets
    }
}

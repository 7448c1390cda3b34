import Foundation
import Testing
import TestSupport

/// `fetchplay --download LINK --audio-only` on plain links, served by the test server: a DASH
/// manifest saves its audio AdaptationSet alone (no video segment asked for), an HLS master its
/// audio rendition alone (the video's playlist never read) or, when the audio is in the
/// variant's own segments, that audio; a video file its audio track, copied out without
/// re-encoding into `.m4a` (AAC) or `.webm` (Vorbis), the video gone. A file with no audio says
/// so in one sentence and keeps the video.
struct AudioOnlyCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var cacheDir: String { fixture.cacheDir }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-cli-audio")
    }

    private func audioOnly(_ path: String) throws -> FetchplayProcess {
        try fixture.download(server.url(path), ["--audio-only"])
    }

    /// The saved file: audio alone of about `seconds`, ending in `ext`, decoding cleanly, alone
    /// in the videos folder.
    @discardableResult
    private func expectAudio(_ run: FetchplayProcess, ext: String, seconds: Double) throws -> String {
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix(cacheDir + "/videos/") && path.hasSuffix("." + ext), "\(path)")
        let media = try DiscoveredMedia.probe(path)
        #expect(media.videoStreams == 0 && media.audioStreams == 1, "\(media)")
        #expect(abs(media.duration - seconds) < 0.2, "duration \(media.duration)")
        #expect(try FFprobe.decodeErrors(path) == "")
        let saved = try FileManager.default.contentsOfDirectory(atPath: cacheDir + "/videos").filter { !$0.hasSuffix(".json") && !$0.hasPrefix(".") }
        #expect(saved == [(path as NSString).lastPathComponent], "only the audio is kept: \(saved)")
        return path
    }

    @Test func aDASHLinkSavesItsAudioAdaptationSetAlone() throws {
        let clip = try Clips.dash()
        clip.serve(on: server)
        try expectAudio(try audioOnly("/tl/index.mpd"), ext: "m4a", seconds: clip.seconds)
        let video = server.requests.map(\.path).filter { $0.hasPrefix("/tl/") && $0.contains("stream0") }
        #expect(video.isEmpty, "no video segment asked for: \(video)")
        #expect(!server.requests.map(\.path).filter { $0.hasPrefix("/tl/") && $0.contains("stream1") }.isEmpty)
    }

    @Test func anHLSMasterWithItsOwnAudioSavesTheRenditionAlone() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        try expectAudio(try audioOnly("/alt/master.m3u8"), ext: "m4a", seconds: clip.seconds)
        let video = server.requests.map(\.path).filter { $0.hasPrefix("/alt/video/") }
        #expect(video.isEmpty, "the video's playlist and segments are never asked for: \(video)")
    }

    @Test func anHLSVariantWhoseSegmentsHoldTheAudioSavesThatAudio() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        try expectAudio(try audioOnly("/v360/index.m3u8"), ext: "m4a", seconds: clip.seconds)
    }

    @Test func aVideoFileSavesItsAudioTrackAsItIs() throws {
        let file = try Clips.mp4IndexLast(seconds: 4)
        server.serve("/clip.mp4", body: Array(try Data(contentsOf: URL(fileURLWithPath: file))), etag: "\"mp4\"")
        let path = try expectAudio(try audioOnly("/clip.mp4"), ext: "m4a", seconds: 4)
        // Copied, not encoded again: the same AAC packets as in the video's file.
        #expect(try FFprobe.packets(path).first { $0.kind == "audio" }?.count == FFprobe.packets(file).first { $0.kind == "audio" }?.count)
    }

    @Test func aVorbisTrackIsSavedAsWebM() throws {
        let file = try Clips.webm(seconds: 2)
        server.serve("/clip.webm", body: Array(try Data(contentsOf: URL(fileURLWithPath: file))), etag: "\"webm\"")
        try expectAudio(try audioOnly("/clip.webm"), ext: "webm", seconds: 2)
    }

    @Test func aFileWithNoAudioSaysSoAndKeepsTheVideo() throws {
        let file = try Clips.webm(seconds: 2, audio: false)
        server.serve("/silent.webm", body: Array(try Data(contentsOf: URL(fileURLWithPath: file))), etag: "\"silent\"")
        let run = try audioOnly("/silent.webm")
        #expect(run.status == 1)
        #expect(run.standardError.contains("its audio alone could not be (the file has no audio track); the whole video is kept."),
                "\(run.standardError)")
        #expect(!run.standardError.contains("Traceback") && !run.standardError.contains("GStreamer-CRITICAL"))
        let saved = try FileManager.default.contentsOfDirectory(atPath: cacheDir + "/videos").filter { $0.hasSuffix(".webm") }
        #expect(saved == ["silent.webm"], "\(saved)")
    }
}

import Foundation
import Glibc
import Synchronization

/// DASH presentations made at test time with ffmpeg's DASH muxer, once per process: 4 s of
/// bars and a tone, 1 s segments, H.264 640x360 and AAC.
///
/// ```
/// tl/index.mpd       SegmentTemplate with a SegmentTimeline (-use_timeline 1), $Number%05d$
/// num/index.mpd      SegmentTemplate with a fixed duration and startNumber (-use_timeline 0)
/// single/index.mpd   one file per stream, a SegmentList of mediaRange byte ranges (-single_file 1)
/// multi/index.mpd    two video Representations (640x360 and 320x180) and the audio, timeline
/// audio/index.mpd    the tone alone
/// periods/index.mpd  tl's media twice, as two Periods (8 s)
/// base/index.mpd     SegmentBase with indexRange (the on-demand profile) over fragmented MP4s
///                    with a global sidx (base/media/video.mp4, base/media/audio.mp4), their
///                    BaseURLs nested at the MPD, AdaptationSet and Representation
/// ```
public struct DASHClip: Sendable {
    public let folder: String
    /// Every file by its path under the folder ("tl/index.mpd").
    public let files: [String: [UInt8]]
    public let seconds: Double

    /// Serves every file at `/PATH`, each with an ETag so it resumes with Range; the media at
    /// `mediaBytesPerSecond` an answer when given (the manifests at once).
    public func serve(on server: FaultServer, mediaBytesPerSecond rate: Int? = nil) {
        for (path, body) in files {
            let manifest = path.hasSuffix(".mpd")
            server.serve("/" + path, body: body, etag: "\"\(path.hashValue & 0xFFFF_FFFF)\"",
                         headers: manifest ? [HTTPHeader("Content-Type", "application/dash+xml")] : [],
                         faults: manifest ? [] : rate.map { [.throttle(bytesPerSecond: $0)] } ?? [], faultyRequests: nil)
        }
    }

    /// Serves `/tl/subtitled.mpd`: the timeline presentation with an English WebVTT
    /// AdaptationSet (`/tl/subs/en.vtt`, served too), and returns the subtitle file's bytes.
    @discardableResult
    public func serveSubtitled(on server: FaultServer) -> [UInt8] {
        let vtt = Array("WEBVTT\n\n00:00.000 --> 00:03.000\nHello\n".utf8)
        server.serve("/tl/subs/en.vtt", body: vtt, headers: [HTTPHeader("Content-Type", "text/vtt")])
        let manifest = text("tl/index.mpd").replacingOccurrences(of: "</Period>", with: """
            <AdaptationSet contentType="text" mimeType="text/vtt" lang="en">
              <Representation id="en" bandwidth="256"><BaseURL>subs/en.vtt</BaseURL></Representation>
            </AdaptationSet></Period>
            """)
        server.serve("/tl/subtitled.mpd", body: Array(manifest.utf8), headers: [HTTPHeader("Content-Type", "application/dash+xml")])
        return vtt
    }

    /// A manifest's text ("tl/index.mpd").
    public func text(_ path: String) -> String { String(decoding: files[path] ?? [], as: UTF8.self) }
}

extension Clips {
    private static let dashMade = Mutex<DASHClip?>(nil)

    /// The presentations (made on first use: a few seconds).
    public static func dash() throws -> DASHClip {
        try dashMade.withLock { made in
            if let made { return made }
            let clip = try makeDASH(seconds: 4)
            made = clip
            return clip
        }
    }

    private static let lectureMade = Mutex<DASHClip?>(nil)

    /// A longer presentation for seeking: `lecture/index.mpd`, 12 s of bars and a tone in 1 s
    /// segments, as tl/ (a SegmentTimeline).
    public static func dashLecture() throws -> DASHClip {
        try lectureMade.withLock { made in
            if let made { return made }
            let seconds = 12
            let folder = directory + "/dash-lecture-\(UUID().uuidString)"
            try ffmpegDASH(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=\(seconds)",
                            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)",
                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
                            "-c:a", "aac", "-b:a", "64k", "-use_template", "1", "-use_timeline", "1"], into: folder + "/lecture")
            let clip = DASHClip(folder: folder, files: try files(under: folder), seconds: Double(seconds))
            made = clip
            return clip
        }
    }

    private static func makeDASH(seconds: Int) throws -> DASHClip {
        let folder = directory + "/dash-\(UUID().uuidString)"
        let video = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=\(seconds)"]
        let audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)"]
        let h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0"]
        let aac = ["-c:a", "aac", "-b:a", "64k"]
        try ffmpegDASH(video + audio + h264 + aac + ["-use_template", "1", "-use_timeline", "1"], into: folder + "/tl")
        try ffmpegDASH(video + audio + h264 + aac + ["-use_template", "1", "-use_timeline", "0"], into: folder + "/num")
        try ffmpegDASH(video + audio + h264 + aac + ["-single_file", "1"], into: folder + "/single")
        try ffmpegDASH(video + audio + ["-map", "0:v", "-map", "0:v", "-map", "1:a"] + h264
                       + ["-s:v:1", "320x180", "-b:v:0", "800k", "-b:v:1", "200k"] + aac
                       + ["-adaptation_sets", "id=0,streams=v id=1,streams=a"], into: folder + "/multi")
        try ffmpegDASH(audio + aac, into: folder + "/audio")
        try onDemand(video: video + h264, audio: audio + aac, into: folder + "/base", seconds: seconds)
        try twoPeriods(from: folder + "/tl", into: folder + "/periods", seconds: seconds)

        let files = try files(under: folder)
        return DASHClip(folder: folder, files: files, seconds: Double(seconds))
    }

    /// Every file under `folder` by its path there, all readable by others (a server in another
    /// user's process may serve the folder).
    private static func files(under folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
            chmod(folder + "/" + path, isFolder.boolValue ? 0o755 : 0o644)
            guard !isFolder.boolValue else { continue }
            files[path] = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path)))
        }
        chmod(folder, 0o755)
        return files
    }

    /// `ffmpeg ARGUMENTS -f dash` into `folder/index.mpd`, 1 s segments, a static manifest.
    private static func ffmpegDASH(_ arguments: [String], into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments
                + ["-f", "dash", "-seg_duration", "1", folder + "/index.mpd"])
    }

    /// Fragmented MP4s with one global sidx each, and an on-demand manifest over them whose
    /// `indexRange`s are where their sidx boxes are.
    private static func onDemand(video: [String], audio: [String], into folder: String, seconds: Int) throws {
        try FileManager.default.createDirectory(atPath: folder + "/media", withIntermediateDirectories: true)
        let flags = ["-movflags", "+frag_keyframe+empty_moov+default_base_moof+global_sidx"]
        try run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + video + flags + [folder + "/media/video.mp4"])
        try run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + audio + ["-frag_duration", "1000000"] + flags
                + [folder + "/media/audio.mp4"])
        let videoIndex = try sidxRange(folder + "/media/video.mp4"), audioIndex = try sidxRange(folder + "/media/audio.mp4")
        try Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT\(seconds)S"
                 profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
              <BaseURL>./</BaseURL>
              <Period>
                <AdaptationSet contentType="video" mimeType="video/mp4">
                  <BaseURL>media/</BaseURL>
                  <Representation id="v" bandwidth="1000000" width="640" height="360" codecs="avc1.42c01e">
                    <BaseURL>video.mp4</BaseURL>
                    <SegmentBase indexRange="\(videoIndex.lowerBound)-\(videoIndex.upperBound - 1)">
                      <Initialization range="0-\(videoIndex.lowerBound - 1)"/>
                    </SegmentBase>
                  </Representation>
                </AdaptationSet>
                <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
                  <BaseURL>media/</BaseURL>
                  <Representation id="a" bandwidth="64000" codecs="mp4a.40.2">
                    <BaseURL>audio.mp4</BaseURL>
                    <SegmentBase indexRange="\(audioIndex.lowerBound)-\(audioIndex.upperBound - 1)"/>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>

            """.utf8).write(to: URL(fileURLWithPath: folder + "/index.mpd"))
    }

    /// `source`'s manifest as two Periods one after the other, both of its media (a BaseURL
    /// up to it): the second Period's media times start at 0 again, as a packager's do.
    private static func twoPeriods(from source: String, into folder: String, seconds: Int) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: source + "/index.mpd", encoding: .utf8)
        guard let open = text.range(of: "<Period"), let close = text.range(of: "</Period>") else {
            throw Failure(description: "no Period in \(source)/index.mpd")
        }
        let body = text[open.lowerBound..<close.upperBound]
        let periods = [0, 1].map { index in
            body.replacingOccurrences(of: "<Period id=\"0\" start=\"PT0.0S\">",
                                      with: "<Period id=\"\(index)\" duration=\"PT\(seconds)S\"><BaseURL>../tl/</BaseURL>")
        }
        let manifest = text[..<open.lowerBound].replacingOccurrences(of: "mediaPresentationDuration=\"PT\(seconds).0S\"",
                                                                    with: "mediaPresentationDuration=\"PT\(seconds * 2)S\"")
            + periods.joined(separator: "\n") + text[close.upperBound...]
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/index.mpd"))
    }

    /// Where a file's top-level sidx box lies.
    private static func sidxRange(_ path: String) throws -> Range<Int> {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("sidx".utf8) { return offset..<(offset + size) }
            guard size >= 8 else { break }
            offset += size
        }
        throw Failure(description: "\(path) has no sidx")
    }
}

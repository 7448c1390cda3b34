import Foundation
import Glibc
import Synchronization

/// HLS presentations in fragmented MP4 (CMAF-style) and byte-ranged MPEG-TS, made at test time
/// with ffmpeg's HLS muxer, once per process: 4 s of bars and a tone, 1 s segments, 640x360.
///
/// ```
/// sep/index.m3u8       H.264 + AAC in one stream: EXT-X-MAP init.mp4, then seg000.m4s …
/// single/index.m3u8    the same in one file (-hls_flags single_file): EXT-X-MAP with BYTERANGE,
///                      EXT-X-BYTERANGE into index.m4s
/// remap/index.m3u8     sep's segments with a second EXT-X-MAP half-way (a copy of init.mp4)
/// enc/index.m3u8       sep encrypted with AES-128 by `openssl enc`, its init section too (an
///                      EXT-X-KEY with an IV before the EXT-X-MAP); enc/key.bin the key
/// hevc/index.m3u8      H.265 (libx265, hvc1) + AAC, separate files; only when ffmpeg has libx265
/// tsrange/index.m3u8   H.264 + AAC in MPEG-TS, one file by byte range
/// alt/video/           H.264 without audio, fragmented MP4
/// alt/audio/           AAC alone, fragmented MP4 in one file by byte range (as Apple packages it)
/// alt/master.m3u8      alt/video with alt/audio as its EXT-X-MEDIA audio rendition
/// apple/master.m3u8    the structure of Apple's advanced examples over these streams:
///                      INDEPENDENT-SEGMENTS, SESSION-DATA, audio groups of AAC, AC-3 and E-AC-3,
///                      WebVTT subtitles, closed captions, I-frame playlists, CODECS; the
///                      highest BANDWIDTH is an E-AC-3 variant (no MP4 Fetchplay writes takes it)
/// ```
public struct HLSFragmentedClip: Sendable {
    public let folder: String
    /// Every file by its path under the folder ("sep/init.mp4").
    public let files: [String: [UInt8]]
    public let seconds: Double
    /// Whether `hevc/` is there (ffmpeg with libx265).
    public let hasHEVC: Bool

    /// Serves every file at `/PATH`, each with an ETag so it resumes with Range.
    public func serve(on server: FaultServer) {
        for (path, body) in files {
            server.serve("/" + path, body: body, etag: "\"\(path.hashValue & 0xFFFF_FFFF)\"")
        }
    }

    /// The media files of one stream ("sep"), by path, in order: init sections first.
    public func media(of stream: String) -> [String] {
        files.keys.filter { $0.hasPrefix(stream + "/") && !$0.hasSuffix(".m3u8") }.sorted { a, b in
            (a.hasSuffix("init.mp4") ? 0 : 1, a) < (b.hasSuffix("init.mp4") ? 0 : 1, b)
        }
    }
}

extension Clips {
    private static let fragmentedMade = Mutex<HLSFragmentedClip?>(nil)

    /// The presentations (made on first use: a few seconds).
    public static func fragmentedHLS() throws -> HLSFragmentedClip {
        try fragmentedMade.withLock { made in
            if let made { return made }
            let clip = try makeFragmentedHLS(seconds: 4)
            made = clip
            return clip
        }
    }

    private static func makeFragmentedHLS(seconds: Int) throws -> HLSFragmentedClip {
        let folder = directory + "/hls-fmp4-\(UUID().uuidString)"
        let video = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=\(seconds)"]
        let audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)"]
        let h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0"]
        let aac = ["-c:a", "aac", "-b:a", "64k"]
        let fmp4 = ["-hls_segment_type", "fmp4"]
        try ffmpegHLS(video + audio + h264 + aac + fmp4, into: folder + "/sep", segments: "seg%03d.m4s")
        try ffmpegHLS(video + audio + h264 + aac + fmp4 + ["-hls_flags", "single_file"], into: folder + "/single", segments: "index.m4s")
        try ffmpegHLS(video + audio + h264 + aac + ["-hls_segment_type", "mpegts", "-hls_flags", "single_file"],
                      into: folder + "/tsrange", segments: "index.ts")
        try ffmpegHLS(video + h264 + fmp4, into: folder + "/alt/video", segments: "seg%03d.m4s")
        try ffmpegHLS(audio + aac + fmp4 + ["-hls_flags", "single_file"], into: folder + "/alt/audio", segments: "index.m4s")
        let hasHEVC = (try? ffmpegHLS(video + audio + ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1",
                                                       "-x265-params", "keyint=30:min-keyint=30:log-level=error"] + aac + fmp4,
                                      into: folder + "/hevc", segments: "seg%03d.m4s")) != nil
        try remapped(from: folder + "/sep", into: folder + "/remap")
        try encrypted(from: folder + "/sep", into: folder + "/enc")
        try write(folder + "/alt/master.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="1",URI="audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aud"
            video/index.m3u8

            """)
        try write(folder + "/apple/master.m3u8", appleStyleMaster(hevc: hasHEVC))
        try write(folder + "/apple/subs/index.m3u8", """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-VERSION:3
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:4.0,
            cues.webvtt
            #EXT-X-ENDLIST

            """)
        try write(folder + "/apple/subs/cues.webvtt", "WEBVTT\n\n00:00.000 --> 00:02.000\nBars\n")

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
        return HLSFragmentedClip(folder: folder, files: files, seconds: Double(seconds), hasHEVC: hasHEVC)
    }

    /// `ffmpeg ARGUMENTS -f hls` into `folder/index.m3u8`, 1 s segments, a complete (VOD) playlist.
    private static func ffmpegHLS(_ arguments: [String], into folder: String, segments: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments
                + ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                   "-hls_segment_filename", folder + "/" + segments, folder + "/index.m3u8"])
    }

    /// `source`'s playlist with its EXT-X-MAP said again before the third segment, naming a
    /// copy of the init section, as a packager that starts a new section part-way does.
    private static func remapped(from source: String, into target: String) throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/init.mp4", toPath: target + "/init-b.mp4")
        var lines: [String] = []
        var segment = 0
        for line in try String(contentsOfFile: source + "/index.m3u8", encoding: .utf8).split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXTINF") {
                if segment == 2 { lines.append("#EXT-X-MAP:URI=\"init-b.mp4\"") }
                segment += 1
            }
            lines.append(line.hasPrefix("#EXT-X-MAP") ? "#EXT-X-MAP:URI=\"../sep/init.mp4\"" : line)
            if !line.hasPrefix("#") { lines[lines.count - 1] = "../sep/" + line }
        }
        try write(target + "/index.m3u8", lines.joined(separator: "\n") + "\n")
    }

    /// `source` encrypted whole-file with AES-128-CBC, one key and one explicit IV for the init
    /// section and every segment (RFC 8216 §4.3.2.5: an EXT-X-MAP after an EXT-X-KEY is encrypted).
    private static func encrypted(from source: String, into target: String) throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let key = "00112233445566778899aabbccddeeff", iv = "0f0e0d0c0b0a09080706050403020100"
        try Data((0..<16).map { UInt8(0x11 * $0) }).write(to: URL(fileURLWithPath: target + "/key.bin"))
        var lines: [String] = []
        for line in try String(contentsOfFile: source + "/index.m3u8", encoding: .utf8).split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-MAP") { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\",IV=0x\(iv)") }
            lines.append(line)
        }
        let names = ["init.mp4"] + lines.filter { !$0.hasPrefix("#") }
        for name in names {
            try run("openssl", ["enc", "-aes-128-cbc", "-K", key, "-iv", iv, "-in", source + "/" + name, "-out", target + "/" + name])
        }
        try write(target + "/index.m3u8", lines.joined(separator: "\n") + "\n")
    }

    /// A master laid out as Apple's advanced examples are (written for these tests): variants
    /// per audio group, I-frame playlists, subtitles and captions, over the streams made here.
    private static func appleStyleMaster(hevc: Bool) -> String {
        let hevcVariants = hevc ? """
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=1500000,BANDWIDTH=1600000,CODECS="hvc1.1.6.L93.B0,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,CLOSED-CAPTIONS="cc1",AUDIO="aud1",SUBTITLES="sub1"
            ../hevc/index.m3u8

            """ : ""
        return """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Bars and a tone"

            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=500000,BANDWIDTH=540000,CODECS="avc1.640015,mp4a.40.2",RESOLUTION=480x270,FRAME-RATE=30.000,CLOSED-CAPTIONS="cc1",AUDIO="aud1",SUBTITLES="sub1"
            v2/prog_index.m3u8
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=890000,BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,CLOSED-CAPTIONS="cc1",AUDIO="aud1",SUBTITLES="sub1"
            ../alt/video/index.m3u8
            \(hevcVariants)
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=1100000,BANDWIDTH=1120000,CODECS="avc1.42c01e,ac-3",RESOLUTION=640x360,FRAME-RATE=30.000,CLOSED-CAPTIONS="cc1",AUDIO="aud2",SUBTITLES="sub1"
            ../alt/video/index.m3u8
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=1900000,BANDWIDTH=2000000,CODECS="avc1.42c01e,ec-3",RESOLUTION=640x360,FRAME-RATE=30.000,CLOSED-CAPTIONS="cc1",AUDIO="aud3",SUBTITLES="sub1"
            ../alt/video/index.m3u8

            #EXT-X-I-FRAME-STREAM-INF:AVERAGE-BANDWIDTH=90000,BANDWIDTH=100000,CODECS="avc1.42c01e",RESOLUTION=640x360,URI="v3/iframe_index.m3u8"
            #EXT-X-I-FRAME-STREAM-INF:AVERAGE-BANDWIDTH=40000,BANDWIDTH=41000,CODECS="avc1.640015",RESOLUTION=480x270,URI="v2/iframe_index.m3u8"

            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="1",URI="../alt/audio/index.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud2",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="6",URI="a2/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE="AUDIO",GROUP-ID="aud3",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="16/JOC",URI="a3/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,INSTREAM-ID="CC1"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,FORCED=NO,URI="subs/index.m3u8"

            """
    }

    private static func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}

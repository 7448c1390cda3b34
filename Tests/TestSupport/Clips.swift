import Foundation
import ThreadKit

/// Short videos generated with `gst-launch-1.0` at test time, each made once per process.
///
/// Video is SMPTE colour bars (the top-left bar is 75% white, about (192, 192, 192)) at
/// 30 frames per second with a key frame every half second; sound is a sine tone.
public enum Clips {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A WebM file (VP8 video, Vorbis audio).
    public static func webm(seconds: Double = 2, width: Int = 320, height: Int = 240,
                            audio: Bool = true) throws -> String {
        try clip(name: "clip-\(seconds)s-\(width)x\(height)\(audio ? "-audio" : "").webm",
                 video: ["vp8enc", "deadline=1", "keyframe-max-dist=15"],
                 audioEncoder: ["vorbisenc"], muxer: "webmmux",
                 seconds: seconds, width: width, height: height, audio: audio)
    }

    /// An AVI file with MPEG-4 part 2 video (libav) and MP3 audio: a second demuxer and decoder.
    ///
    /// Not MP4: Debian 12's `avenc_mpeg4` emits buffers without timestamps, and `mp4mux` then
    /// writes a file whose tracks qtdemux skips; `avimux` counts frames instead.
    public static func mpeg4(seconds: Double = 2, width: Int = 320, height: Int = 240,
                             audio: Bool = true) throws -> String {
        try clip(name: "clip-\(seconds)s-\(width)x\(height)\(audio ? "-audio" : "").avi",
                 video: ["avenc_mpeg4", "gop-size=15"],
                 audioEncoder: ["lamemp3enc"], muxer: "avimux",
                 seconds: seconds, width: width, height: height, audio: audio)
    }

    /// An MP4 file (H.264 from openh264, AAC from libav) with its index (`moov`) at the end, as
    /// `mp4mux` writes it without `faststart` (and as cameras do).
    public static func mp4IndexLast(seconds: Double = 8, width: Int = 640, height: Int = 360) throws -> String {
        try file(named: "clip-\(seconds)s-\(width)x\(height)-moov-last.mp4") { path in
            try run("gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=\(Int((seconds * 30).rounded()))", "pattern=smpte", "!",
                                       "video/x-raw,width=\(width),height=\(height),framerate=30/1", "!", "videoconvert", "!",
                                       "openh264enc", "gop-size=15", "!", "h264parse", "!", "queue", "!",
                                       "mp4mux", "faststart=false", "name=mux", "!", "filesink", "location=\(path)",
                                       "audiotestsrc", "num-buffers=\(Int((seconds * 100).rounded()))", "samplesperbuffer=441", "!",
                                       "audio/x-raw,rate=44100,channels=1", "!", "audioconvert", "!", "avenc_aac", "!",
                                       "queue", "!", "mux."])
        }
    }

    /// A plain text file with a video extension.
    public static func textFile() throws -> String {
        try file(named: "notes.webm") { path in
            try Data("These are notes, not a video.\n".utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    /// `count` bytes of fixed pseudo-random noise (no media format recognises it).
    public static func noise(count: Int = 64 * 1024) throws -> String {
        try file(named: "noise-\(count).mp4") { path in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let bytes = (0..<count).map { _ -> UInt8 in
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// The first `fraction` of `path`'s bytes, as a download cut short would leave it.
    public static func truncated(_ path: String, keeping fraction: Double) throws -> String {
        let name = "truncated-\(Int(fraction * 100))-" + URL(fileURLWithPath: path).lastPathComponent
        return try file(named: name) { target in
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: target))
        }
    }

    /// The folder clips are written to (removed by the OS's temp cleaning, not by the tests).
    public static let directory: String = {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("fetchplay-clips-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return base.path
    }()

    /// A Matroska clip with one VP8 video track and two Vorbis audio tracks, tagged English
    /// (a 440 Hz tone) and French (880 Hz).
    public static func twoAudioTracks(seconds: Double = 4) throws -> String {
        try file(named: "clip-\(seconds)s-two-audio.mkv") { path in
            let buffers = Int((seconds * 100).rounded())
            var arguments = ["-q", "videotestsrc", "num-buffers=\(Int((seconds * 30).rounded()))", "pattern=smpte", "!",
                             "video/x-raw,width=320,height=240,framerate=30/1", "!", "videoconvert", "!",
                             "vp8enc", "deadline=1", "!", "queue", "!",
                             "matroskamux", "name=mux", "!", "filesink", "location=\(path)"]
            for (language, frequency) in [("en", 440), ("fr", 880)] {
                arguments += ["audiotestsrc", "num-buffers=\(buffers)", "samplesperbuffer=441", "freq=\(frequency)", "!",
                              "audio/x-raw,rate=44100,channels=1", "!", "audioconvert", "!", "vorbisenc", "!",
                              "taginject", "tags=language-code=\(language)", "!", "queue", "!", "mux."]
            }
            try run("gst-launch-1.0", arguments)
        }
    }

    /// A SubRip file that shows `text` from the start to `seconds`.
    public static func subRip(_ text: String, seconds: Double = 60, named name: String = "subtitles.srt") throws -> String {
        try file(named: name) { path in
            try Data(subRipText(text, seconds: seconds).utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    /// SubRip cues showing `text` for `seconds`, one cue per second: GStreamer recognises a
    /// subtitle file by its first 129 bytes, so a file of one short cue would not be one.
    static func subRipText(_ text: String, seconds: Double) -> String {
        func time(_ second: Int) -> String {
            String(format: "%02d:%02d:%02d,000", second / 3600, second / 60 % 60, second % 60)
        }
        return (0..<max(4, Int(seconds.rounded(.up)))).map { second in
            "\(second + 1)\n\(time(second)) --> \(time(second + 1))\n\(text)\n\n"
        }.joined()
    }

    /// A Matroska clip of black 640x360 VP8 video with one subtitle stream, tagged German and titled
    /// "Signs", that shows "SUBTITLES" from start to end (white letters at the bottom).
    public static func embeddedSubtitles(seconds: Double = 4) throws -> String {
        let subtitles = try subRip("SUBTITLES", seconds: seconds, named: "embedded-\(seconds)s.srt")
        return try file(named: "clip-\(seconds)s-subtitled.mkv") { path in
            try run("gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=\(Int((seconds * 30).rounded()))", "pattern=black", "!",
                                       "video/x-raw,width=640,height=360,framerate=30/1", "!", "videoconvert", "!",
                                       "vp8enc", "deadline=1", "keyframe-max-dist=15", "!", "queue", "!",
                                       "matroskamux", "name=mux", "!", "filesink", "location=\(path)",
                                       "filesrc", "location=\(subtitles)", "!", "subparse", "!",
                                       "taginject", "tags=language-code=de,title=Signs", "!", "queue", "!", "mux."])
        }
    }

    /// A black 640x360 WebM clip without sound or subtitles, in a folder of its own as `video.webm`,
    /// with `video.srt` (showing "BESIDE") beside it when `withSubtitles`.
    public static func blackVideo(seconds: Double = 4, withSubtitles: Bool) throws -> String {
        let folder = directory + "/black-\(seconds)s-\(withSubtitles ? "with" : "without")-srt"
        return try file(named: "black-\(seconds)s-\(withSubtitles ? "with" : "without")-srt/video.webm") { path in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try run("gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=\(Int((seconds * 30).rounded()))", "pattern=black", "!",
                                       "video/x-raw,width=640,height=360,framerate=30/1", "!", "videoconvert", "!",
                                       "vp8enc", "deadline=1", "keyframe-max-dist=15", "!", "webmmux", "!",
                                       "filesink", "location=\(path)"])
            if withSubtitles {
                try Data(subRipText("BESIDE", seconds: seconds).utf8).write(to: URL(fileURLWithPath: folder + "/video.srt"))
            }
        }
    }

    /// A JPEG picture of one colour (an ffmpeg colour name, such as "red"): a site's poster.
    public static func jpeg(color: String = "red", width: Int = 320, height: Int = 180) throws -> String {
        try file(named: "picture-\(color)-\(width)x\(height).jpg") { path in
            try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=\(color):s=\(width)x\(height)", "-frames:v", "1",
                               "-f", "image2", "-y", path])
        }
    }

    private static let made = Locked<[String: String]>([:])

    /// Makes the file once per process (concurrent callers may both make it; the last write wins).
    private static func file(named name: String, make: (String) throws -> Void) throws -> String {
        if let path = made.withLock({ $0[name] }) { return path }
        let path = directory + "/" + name
        let partial = path + ".part-\(UUID().uuidString)"
        try make(partial)
        guard rename(partial, path) == 0 else {
            throw Failure(description: "cannot rename \(partial): errno \(errno)")
        }
        made.withLock { $0[name] = path }
        return path
    }

    private static func clip(name: String, video encoder: [String], audioEncoder: [String],
                             muxer: String, seconds: Double, width: Int, height: Int,
                             audio: Bool) throws -> String {
        try file(named: name) { path in
            let frames = max(1, Int((seconds * 30).rounded()))
            var arguments = ["-q",
                             "videotestsrc", "num-buffers=\(frames)", "pattern=smpte", "!",
                             "video/x-raw,width=\(width),height=\(height),framerate=30/1", "!",
                             "videoconvert", "!"] + encoder + ["!", "queue", "!",
                             muxer, "name=mux", "!", "filesink", "location=\(path)"]
            if audio {
                // 441 samples per buffer at 44.1 kHz: 100 buffers a second.
                arguments += ["audiotestsrc", "num-buffers=\(Int((seconds * 100).rounded()))",
                              "samplesperbuffer=441", "!", "audio/x-raw,rate=44100,channels=1", "!",
                              "audioconvert", "!"] + audioEncoder + ["!", "queue", "!", "mux."]
            }
            try run("gst-launch-1.0", arguments)
        }
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) failed (\(process.terminationStatus)): "
                          + String(decoding: output, as: UTF8.self))
        }
    }
}

import Foundation
import Glibc
import Synchronization

/// An HLS presentation made with GStreamer at test time, once per process: two variants
/// (360p and 720p, H.264 and AAC in MPEG-TS, one-second segments) under a master playlist, and
/// a copy of the 360p one encrypted with AES-128 by the `openssl enc` command.
///
/// ```
/// master.m3u8          both variants          v360/index.m3u8, v360/seg00000.ts …
/// enc/index.m3u8       AES-128: the first half with the sequence number as IV, the rest with IV=
/// enc/key.bin          the 16-byte key        v720/index.m3u8, v720/seg00000.ts …
/// alt/master.m3u8      a 360p variant with no audio of its own (alt/video/) and two audio
///                      renditions in their own playlists (EXT-X-MEDIA): alt/audio/ (English,
///                      DEFAULT) and alt/audio-fr/ (French, listed first, not DEFAULT)
/// ```
public struct HLSClip: Sendable {
    /// The folder holding every file (world-readable, for nginx).
    public let folder: String
    /// Every file by its path under the folder ("v360/index.m3u8").
    public let files: [String: [UInt8]]
    /// Seconds of video in each variant.
    public let seconds: Double

    /// The segments of one variant ("v360", "v720", "enc"), by path, in order.
    public func segments(of variant: String) -> [String] {
        files.keys.filter { $0.hasPrefix(variant + "/") && $0.hasSuffix(".ts") }.sorted()
    }

    /// Serves every file at `/PATH` on `server`, each with an ETag so segments can resume.
    public func serve(on server: FaultServer) {
        for (path, body) in files {
            server.serve("/" + path, body: body, etag: "\"\(path.hashValue & 0xFFFF_FFFF)\"")
        }
    }

    /// The 360p variant as a live playlist would look: the same segments, no end yet.
    public var livePlaylist: [UInt8] {
        let text = String(decoding: files["v360/index.m3u8"]!, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "#EXT-X-ENDLIST", with: "").utf8)
    }
}

extension Clips {
    private static let hlsMade = Mutex<HLSClip?>(nil)

    /// The presentation (made on first use: a few seconds).
    public static func hls() throws -> HLSClip {
        // Made under the lock: tests that start together wait for one presentation.
        try hlsMade.withLock { made in
            if let made { return made }
            let clip = try makeHLS(seconds: 4)
            made = clip
            return clip
        }
    }

    private static func makeHLS(seconds: Int) throws -> HLSClip {
        let folder = directory + "/hls-\(UUID().uuidString)"
        var files: [String: [UInt8]] = [:]
        for (name, width, height) in [("v360", 640, 360), ("v720", 1280, 720)] {
            let variant = folder + "/" + name
            try FileManager.default.createDirectory(atPath: variant, withIntermediateDirectories: true)
            // tune=zerolatency and unbounded queues: without them x264's look-ahead holds frames
            // back and hlssink2's splitmuxsink starves one stream.
            let unbounded = ["queue", "max-size-time=0", "max-size-buffers=0", "max-size-bytes=0"]
            try runHLSSink(["-q",
                "videotestsrc", "num-buffers=\(seconds * 30)", "pattern=smpte", "!",
                "video/x-raw,width=\(width),height=\(height),framerate=30/1", "!",
                "x264enc", "speed-preset=ultrafast", "tune=zerolatency", "key-int-max=30", "!", "h264parse", "!"]
                + unbounded + ["!", "hlssink2", "name=h", "target-duration=1", "max-files=0", "playlist-length=0",
                "location=\(variant)/seg%05d.ts", "playlist-location=\(variant)/index.m3u8",
                "audiotestsrc", "num-buffers=\(seconds * 100)", "samplesperbuffer=441", "!",
                "audio/x-raw,rate=44100,channels=1", "!", "avenc_aac", "!", "aacparse", "!"] + unbounded + ["!", "h.audio"],
                playlist: variant + "/index.m3u8")
        }
        try Data("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            v360/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720
            v720/index.m3u8

            """.utf8).write(to: URL(fileURLWithPath: folder + "/master.m3u8"))
        try encryptedCopy(of: folder + "/v360", into: folder + "/enc")
        try alternateAudio(seconds: seconds, into: folder + "/alt")
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
            guard !isFolder.boolValue else { continue }
            files[path] = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path)))
            chmod(folder + "/" + path, 0o644)
        }
        for sub in ["", "/v360", "/v720", "/enc", "/alt", "/alt/video", "/alt/audio", "/alt/audio-fr"] { chmod(folder + sub, 0o755) }
        return HLSClip(folder: folder, files: files, seconds: Double(seconds))
    }

    /// Runs `gst-launch-1.0 ARGUMENTS` until it exits or its playlist is finished.
    ///
    /// On Debian 12, hlssink2 sometimes hangs at shutdown with every segment and the final
    /// playlist (`#EXT-X-ENDLIST`) already written: then, after a grace period, the process is
    /// killed and its output used. A playlist that never ends is a failure.
    private static func runHLSSink(_ arguments: [String], playlist: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gst-launch-1.0"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        func ended() -> Bool {
            (try? String(contentsOfFile: playlist, encoding: .utf8))?.contains("#EXT-X-ENDLIST") == true
        }
        let finished = waitUntil(timeout: .seconds(60)) { !process.isRunning || ended() }
        if process.isRunning, !waitUntil(timeout: .seconds(2), { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        guard finished, ended() else {
            throw Failure(description: "gst-launch-1.0 did not finish \(playlist) (status \(process.terminationStatus))")
        }
    }

    /// A video-only variant and its audio as renditions of their own, each made by a hlssink2
    /// of its own (so their segments are cut independently, as packagers do).
    private static func alternateAudio(seconds: Int, into target: String) throws {
        let unbounded = ["queue", "max-size-time=0", "max-size-buffers=0", "max-size-bytes=0"]
        for name in ["video", "audio"] {
            let folder = target + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let source = name == "video"
                ? ["videotestsrc", "num-buffers=\(seconds * 30)", "pattern=ball", "!",
                   "video/x-raw,width=640,height=360,framerate=30/1", "!",
                   "x264enc", "speed-preset=ultrafast", "tune=zerolatency", "key-int-max=30", "!", "h264parse"]
                : ["audiotestsrc", "num-buffers=\(seconds * 100)", "samplesperbuffer=441", "!",
                   "audio/x-raw,rate=44100,channels=2", "!", "avenc_aac", "!", "aacparse"]
            try runHLSSink(["-q"] + source + ["!"] + unbounded + ["!", "hlssink2", "target-duration=1", "max-files=0",
                "playlist-length=0", "location=\(folder)/seg%05d.ts", "playlist-location=\(folder)/index.m3u8"],
                playlist: folder + "/index.m3u8")
        }
        try FileManager.default.copyItem(atPath: target + "/audio", toPath: target + "/audio-fr")
        try Data("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",AUTOSELECT=YES,URI="audio-fr/index.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="subs/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=700000,RESOLUTION=640x360,AUDIO="aac",SUBTITLES="subs"
            video/index.m3u8

            """.utf8).write(to: URL(fileURLWithPath: target + "/master.m3u8"))
    }

    /// `source`'s segments encrypted with `openssl enc -aes-128-cbc`, and a playlist that says
    /// how: the first half without IV (the media sequence number is the IV), then an explicit IV.
    private static func encryptedCopy(of source: String, into target: String) throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let key = "000102030405060708090a0b0c0d0e0f", iv = "f0e0d0c0b0a090807060504030201000"
        try Data((0..<16).map { UInt8($0) }).write(to: URL(fileURLWithPath: target + "/key.bin"))
        let playlist = try String(contentsOfFile: source + "/index.m3u8", encoding: .utf8)
        var lines: [String] = []
        var segment = 0
        let count = playlist.split(separator: "\n").filter { $0.hasSuffix(".ts") }.count
        for line in playlist.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasSuffix(".ts") {
                let sequenceIV = String(repeating: "0", count: 30) + String(format: "%02x", segment)
                let explicit = segment >= count / 2
                if segment == 0 { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\"") }
                if segment == count / 2 { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\",IV=0x\(iv)") }
                try run("openssl", ["enc", "-aes-128-cbc", "-K", key, "-iv", explicit ? iv : sequenceIV,
                                    "-in", source + "/" + line, "-out", target + "/" + line])
                segment += 1
            }
            lines.append(line)
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: target + "/index.m3u8"))
    }
}

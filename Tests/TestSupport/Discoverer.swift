import Foundation

/// What `gst-discoverer-1.0` says about a media file: the duration and the first video
/// stream's size, as a player would see them.
public struct DiscoveredMedia: Sendable {
    /// Seconds.
    public let duration: Double
    public let width: Int?
    public let height: Int?
    public let seekable: Bool
    /// Streams of each kind in the file.
    public let videoStreams: Int
    public let audioStreams: Int

    /// Runs the discoverer on `path`.
    public static func probe(_ path: String) throws -> DiscoveredMedia {
        let result = try Command.run("/usr/bin/gst-discoverer-1.0", [path], timeout: .seconds(30))
        guard result.status == 0 else { throw Clips.Failure(description: "gst-discoverer-1.0 failed: \(result.standardError)") }
        var duration = 0.0, width: Int?, height: Int?, seekable = false, videos = 0, audios = 0
        for line in result.output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("Duration: ") {
                // H:MM:SS.nnnnnnnnn
                let parts = line.dropFirst(10).split(separator: ":").compactMap { Double($0) }
                if parts.count == 3 { duration = parts[0] * 3600 + parts[1] * 60 + parts[2] }
            } else if line.hasPrefix("Width: "), width == nil {
                width = Int(line.dropFirst(7))
            } else if line.hasPrefix("Height: "), height == nil {
                height = Int(line.dropFirst(8))
            } else if line == "Seekable: yes" {
                seekable = true
            } else if line.hasPrefix("video #") {
                videos += 1
            } else if line.hasPrefix("audio #") {
                audios += 1
            }
        }
        return DiscoveredMedia(duration: duration, width: width, height: height, seekable: seekable,
                               videoStreams: videos, audioStreams: audios)
    }
}

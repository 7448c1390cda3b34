import Foundation

/// What ffmpeg's own tools say of a media file: its streams' packets and whether every one of
/// them decodes. A second reader beside GStreamer's discoverer, so a file is not only right by
/// the muxer that wrote it.
public enum FFprobe {
    /// Packets per stream, in the file's order: ("video", "h264", 120).
    public static func packets(_ path: String) throws -> [(kind: String, codec: String, count: Int)] {
        let result = try Command.run("/usr/bin/ffprobe", ["-v", "error", "-count_packets", "-show_entries",
                                                          "stream=codec_type,codec_name,nb_read_packets", "-of", "csv=p=0", path])
        guard result.status == 0 else { throw Clips.Failure(description: "ffprobe failed: \(result.standardError)") }
        return result.output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 3, let count = Int(fields[2]) else { return nil }
            return (fields[1], fields[0], count)
        }
    }

    /// Decodes every stream of `path` to nothing; what ffmpeg reported as errors (empty: a
    /// clean decode), or the exit status when it failed without a word.
    public static func decodeErrors(_ path: String) throws -> String {
        let result = try Command.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        if result.status != 0, result.standardError.isEmpty { return "ffmpeg exited with \(result.status)" }
        return result.standardError
    }
}

import Foundation

/// A video's picture as its page or its site shows it (a `<video poster>`, yt-dlp's
/// `thumbnail`), kept for the library row: fetched once the video is whole, with the video's own
/// request context (its host-bound parts go only to their host, nothing of it from https down to
/// http), at most `byteLimit` bytes, and kept only when its first bytes are an image's (JPEG,
/// PNG, WebP, GIF). It lies in the library's thumbnails folder under the video's content
/// fingerprint (`FINGERPRINT.picture`), where the library makes its row's picture from it
/// instead of a frame of the video: an audio-only file has none.
public enum VideoPicture {
    /// Bytes a picture may have at most: a poster is tens of kilobytes, a large one a few hundred.
    static let byteLimit = 2 << 20

    /// Where the picture of the video at `path` lies in `folder` (the library's thumbnails), if
    /// its content can be read.
    public static func path(for video: String, in folder: String) -> String? {
        ContentFingerprint.of(path: video).map { path(fingerprint: $0, in: folder) }
    }

    /// Where the picture of the video whose content fingerprint is `fingerprint` lies in `folder`.
    public static func path(fingerprint: String, in folder: String) -> String { folder + "/" + fingerprint + ".picture" }

    /// Whether `bytes` begin as an image the library can read.
    static func isImage(_ bytes: [UInt8]) -> Bool {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        return starts([0xFF, 0xD8, 0xFF]) || starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)) || starts(Array("GIF8".utf8))
    }
}

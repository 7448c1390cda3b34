import Foundation

/// The cache's own rules for the files other modules keep in it (the window's thumbnails and
/// playback positions): made its owner's alone, and read only when trusted, as `FileIO` does
/// for the engine's.
extension Cache {
    /// Creates `folder` (0700), or tightens it to 0700 when it exists and is ours.
    public static func makePrivateFolder(_ folder: String) throws(DownloadError) {
        try FileIO.makePrivateFolder(folder)
    }

    /// Replaces `path` atomically and durably with `contents`, readable by its owner only.
    public static func writePrivateFile(_ path: String, contents: Data) throws(DownloadError) {
        try FileIO.replaceAtomically(path: path, contents: contents)
    }

    /// The contents of a small file of the cache; nil when it is missing, too large, or not
    /// trusted (another user's, or in a folder others can change).
    public static func readPrivateFile(_ path: String, limit: Int = 1 << 20) -> Data? {
        FileIO.readSmallFile(path, limit: limit)
    }
}

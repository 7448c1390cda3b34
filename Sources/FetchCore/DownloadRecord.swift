import Foundation

/// What Fetchplay keeps beside each partial or finished video: enough to resume it correctly.
///
/// Written atomically (temporary file, fsync, rename) and only after the bytes it counts are on
/// disk, so after a crash the file always holds at least `durableBytes` valid bytes.
struct DownloadRecord: Codable, Sendable, Equatable {
    /// The link's identity (`WebAddress.identity`: normalised, never a password); the cache key
    /// is its hash.
    var url: String
    /// Where the redirects ended, for information.
    var finalURL: String?
    /// A strong ETag (never one starting with `W/`), its bytes as scalars (`HeaderBytes`).
    var etag: String?
    var lastModified: String?
    /// The whole file's length, when the server told it.
    var total: Int64?
    /// Bytes of the partial that are known to be on disk (fsynced).
    var durableBytes: Int64
    /// For people only: never used as a file name.
    var displayName: String
    var created: Date
    var completed: Date?
    /// Seconds of video, probed once after it finished (the library shows it). Nil until then.
    var duration: Double?
    /// When the video was last played: the size cap evicts the least recently played first.
    var lastPlayed: Date?
    /// Where playback stopped last time, in seconds; nil to start from the beginning.
    var position: Double?
    /// Why the last run of a partial failed (the sentence people saw); nil once it runs again.
    var failure: String?

    init(url: String, displayName: String) {
        self.url = url
        self.durableBytes = 0
        self.displayName = displayName
        self.created = Date()
    }

    /// The value for `If-Range`: the strong ETag, else Last-Modified; nil unless it can be sent
    /// back byte for byte without control characters (an edited record is checked too).
    var validator: String? { (etag ?? lastModified).flatMap { HeaderBytes.isSafeToSend($0) ? $0 : nil } }

    /// A partial can be continued with `Range` only when its length and identity are known.
    var isResumable: Bool { durableBytes > 0 && total != nil && validator != nil }
}

import Foundation
import Localization

/// What Fetchplay keeps beside each partial or finished video: enough to resume it correctly.
///
/// Written atomically (temporary file, fsync, rename) and only after the bytes it counts are on
/// disk, so after a crash the data file it names holds at least the `durable` ranges, valid.
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
    /// How many bytes `durable` holds (what older versions read: they wrote one prefix).
    var durableBytes: Int64
    /// The byte ranges of the partial that are known to be on disk (fsynced); nil in a record
    /// of an older version, whose `durableBytes` were the prefix `[0, durableBytes)`.
    var ranges: ByteRanges?
    /// The file in `partial/` that these ranges are in; nil: `KEY.part` (older versions). A
    /// download that starts over writes a new file, so a record never vouches for bytes of
    /// another file whatever the moment of a crash.
    var dataFile: String?
    /// For people, and the start of the finished file's name (made safe by `VideoName`).
    var displayName: String
    /// The media type the server gave, for the finished file's extension when the bytes name
    /// none.
    var contentType: String?
    /// The media type the first bytes showed (`MediaSniffer.mediaType`), which the finished
    /// file's extension fits before the server's label. Nil when they showed none, and in
    /// records of older versions.
    var sniffedType: String?
    /// True while the first bytes on disk are not judged yet: a pause came before
    /// `MediaSniffer.enough` of them had, and kept them. The next run judges them with the bytes
    /// that follow before it counts any of those, and a page is refused then. Nil once judged,
    /// and in records of older versions (which judged before writing).
    var unjudged: Bool?
    /// Where the finished video is (absolute); nil in records of older versions, whose video is
    /// `ROOT/videos/KEY.EXT`.
    var file: String?
    var created: Date
    var completed: Date?
    /// Seconds of video, probed once after it finished (the library shows it). Nil until then.
    var duration: Double?
    /// When the video was last played: the size cap evicts the least recently played first.
    var lastPlayed: Date?
    /// Where playback stopped last time, in seconds; nil to start from the beginning.
    var position: Double?
    /// Speed, audio track and subtitles chosen while watching (finished videos); nil: none.
    var choices: PlaybackChoices?
    /// Why the last run of a partial failed (the sentence people saw); nil once it runs again.
    var failure: String?
    /// Files saved beside the finished video that belong to it (a presentation's subtitles,
    /// `Name.en.vtt`), absolute: deleted and undone with it. Nil: none.
    var companions: [String]?
    /// An HLS or DASH presentation's playlists, while its segments download; nil for a file
    /// (and for a presentation's finished video, which is a file like any other).
    var presentation: PresentationPart?

    init(url: String, displayName: String) {
        self.url = url
        self.durableBytes = 0
        self.displayName = displayName
        self.created = Date()
    }

    /// Reads a record's JSON. The file is outside input (damaged, edited, planted): whatever it
    /// holds is an error thrown here or a record whose numbers can be computed with, never a
    /// crash. A negative length or count, or ranges past the length, make it unreadable (the
    /// fuzzer found a negative total trapping in `ByteRanges.covers`).
    static func decoded(from data: Data) throws -> DownloadRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record = try decoder.decode(DownloadRecord.self, from: data)
        let fits = record.total.map { record.durableBytes <= $0 && record.durable.upperBound <= $0 } ?? true
        guard record.total ?? 0 >= 0, record.durableBytes >= 0, fits else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "impossible lengths in a record"))
        }
        return record
    }

    /// The record's JSON as it is written: sorted keys, ISO 8601 dates.
    func encoded() throws(DownloadError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do { return try encoder.encode(self) } catch { throw .fileSystem(tr("cannot encode a record")) }
    }

    /// The value for `If-Range`: the strong ETag, else Last-Modified; nil unless it can be sent
    /// back byte for byte without control characters (an edited record is checked too).
    var validator: String? { (etag ?? lastModified).flatMap { HeaderBytes.isSafeToSend($0) ? $0 : nil } }

    /// A partial can be continued with `Range` only when its length and identity are known.
    var isResumable: Bool { durableBytes > 0 && total != nil && validator != nil }

    /// The ranges on disk; setting them keeps `durableBytes` in step.
    var durable: ByteRanges {
        get { ranges ?? ByteRanges(prefix: durableBytes) }
        set {
            ranges = newValue
            durableBytes = newValue.count
        }
    }

    /// The name of its data file in `partial/`: `dataFile`, or older versions' `KEY.part`.
    func dataFileName(key: String) -> String { dataFile ?? "\(key).part" }
}

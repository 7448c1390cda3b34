import Foundation

/// One HLS link's own folder in the cache while it downloads, and what it vouches for.
///
/// ```
/// ROOT/hls/KEY/presentation.json   its record, a `DownloadRecord` like a file's: the link, and
///                                  in its `presentation` part the chosen variant and its tracks
/// ROOT/hls/KEY/segments/           its pieces, one file each, and the list of those finished
///                                  (`SegmentStore`)
/// ROOT/hls/KEY/video.mp4           GStreamer's remux as the segments arrive (written anew at
///                                  every start), moved into the videos folder when whole
/// ROOT/hls/KEY/joined.ts|.mp4      instead, with no remux (FetchCore's tests): the segments
///                                  joined in order, in the clear
/// ```
/// The tracks are kept as they were first read, so a resume works through the same segment
/// list even if the server's changes.
struct PresentationFolder {
    /// The record of a presentation being downloaded: a `DownloadRecord` like a file's, whose
    /// `presentation` part holds its playlists.
    typealias Record = DownloadRecord

    /// What versions before the one record format wrote (`presentation.json` with the playlists
    /// at its top level, under the same names as `PresentationPart`'s): read, never written, so
    /// a presentation begun by one continues.
    private struct EarlierRecord: Decodable {
        var url: String
        var failure: String?
        var part: PresentationPart

        private enum Keys: String, CodingKey { case url, failure }

        init(from decoder: any Decoder) throws {
            let top = try decoder.container(keyedBy: Keys.self)
            url = try top.decode(String.self, forKey: .url)
            failure = try top.decodeIfPresent(String.self, forKey: .failure)
            part = try PresentationPart(from: decoder)
        }
    }

    /// A new presentation's record: its link, and the tracks it will download.
    static func record(url: String, _ part: PresentationPart) -> Record {
        var record = DownloadRecord(url: url, displayName: StreamLink.title(of: url))
        record.contentType = part.contentType
        record.presentation = part
        return record
    }

    /// A presentation's record from its bytes, in this version's format or an earlier one's;
    /// nil for anything else (a file's record, damaged JSON, impossible numbers).
    static func decode(_ data: Data) -> Record? {
        if let record = try? DownloadRecord.decoded(from: data), record.presentation != nil { return record }
        guard let earlier = try? JSONDecoder().decode(EarlierRecord.self, from: data) else { return nil }
        var record = Self.record(url: earlier.url, earlier.part)
        record.failure = earlier.failure
        return record
    }

    let folder: String
    let store: SegmentStore

    init(cache: Cache, key: String) throws(DownloadError) {
        folder = cache.presentationFolder(key: key)
        try FileIO.makePrivateFolder(cache.presentationsDirectory)
        try FileIO.makePrivateFolder(folder)
        store = try SegmentStore(folder: folder + "/segments")
    }

    var recordPath: String { folder + "/presentation.json" }

    /// Bytes a record may have: its tracks, which for a long DASH presentation (up to
    /// `DASHSegmentTemplate.segmentLimit` absolute links for the video and as many for the
    /// audio) are larger than any playlist fetched.
    static let recordLimit = 64 << 20

    /// The record, trusted only when its link hashes to this folder's name.
    func load(url: String) -> Record? {
        guard let data = FileIO.readSmallFile(recordPath, limit: Self.recordLimit),
              let record = Self.decode(data), record.url == url else { return nil }
        return record
    }

    /// The record, when its link hashes to `key` (the folder's name): for listing, where the
    /// link is not known yet.
    func loadTrusted(key: String) -> Record? {
        guard let data = FileIO.readSmallFile(recordPath, limit: Self.recordLimit),
              let record = Self.decode(data), Cache.key(for: record.url) == key else { return nil }
        return record
    }

    func save(_ record: Record) throws(DownloadError) {
        try FileIO.replaceAtomically(path: recordPath, contents: record.encoded())
    }

    /// Removes the whole folder once the video is in the videos folder, or when nothing of it
    /// is worth keeping.
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}

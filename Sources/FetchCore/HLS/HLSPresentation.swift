import Foundation

/// One HLS link's own folder in the cache while it downloads, and what it vouches for.
///
/// ```
/// ROOT/hls/KEY/presentation.json   the link, the chosen variant and its media playlist's text
/// ROOT/hls/KEY/segments/           a cache of its own: one engine download per resource
/// ROOT/hls/KEY/joined.ts|.mp4      the segments in order, in the clear (rebuilt every time)
/// ROOT/hls/KEY/video.mp4           GStreamer's remux, renamed into ROOT/videos/ when whole
/// ```
/// The media playlist is kept as it was first read, so a resume works through the same segment
/// list even if the server's changes. The segments' own records (finished or partial, in
/// `segments/`) are the list of segments done.
struct HLSPresentation {
    struct Record: Codable, Equatable {
        /// The link's identity; the folder's name is its hash.
        var url: String
        /// The variant's media playlist, and where it was read (relative links resolve from it).
        var mediaURL: String
        var mediaPlaylist: String
        /// "720p", for people.
        var variant: String?
    }

    let folder: String
    let segments: Cache

    init(cache: Cache, key: String) throws(DownloadError) {
        folder = cache.root + "/hls/" + key
        segments = try Cache(root: folder + "/segments")
    }

    var recordPath: String { folder + "/presentation.json" }

    /// The record, trusted only when its link hashes to this folder's name.
    func load(url: String) -> Record? {
        guard let data = FileIO.readSmallFile(recordPath, limit: HLSFetch.limit),
              let record = try? JSONDecoder().decode(Record.self, from: data), record.url == url else { return nil }
        return record
    }

    func save(_ record: Record) throws(DownloadError) {
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch { throw .fileSystem("cannot encode a record") }
        try FileIO.replaceAtomically(path: recordPath, contents: data)
    }

    /// The resources to download, each once and in playing order: init sections and segments
    /// (byte ranges of one file share it).
    static func resources(of playlist: HLSMediaPlaylist) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for segment in playlist.segments {
            for url in [segment.map?.url, segment.url].compactMap({ $0 }) where seen.insert(url).inserted {
                result.append(url)
            }
        }
        return result
    }

    /// The finished file of `url`'s download in `segments/`, if it is whole.
    func finishedPath(of url: String) -> String? {
        guard let entry = segments.entry(for: url), entry.isComplete else { return nil }
        return entry.path
    }

    /// Removes the whole folder once the video is in the videos folder.
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}

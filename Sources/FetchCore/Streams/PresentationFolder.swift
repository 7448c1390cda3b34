import Foundation
import ThreadKit

/// One HLS link's own folder in the cache while it downloads, and what it vouches for.
///
/// ```
/// ROOT/hls/KEY/presentation.json   its record, a `DownloadRecord` like a file's: the link, and
///                                  in its `presentation` part the chosen variant and its tracks
/// ROOT/hls/KEY/segments/           a cache of its own: one engine download per resource
/// ROOT/hls/KEY/video.mp4           GStreamer's remux as the segments arrive (written anew at
///                                  every start), moved into the videos folder when whole
/// ROOT/hls/KEY/joined.ts|.mp4      instead, with no remux (FetchCore's tests): the segments
///                                  joined in order, in the clear
/// ```
/// The tracks are kept as they were first read, so a resume works through the same segment
/// list even if the server's changes. The segments' own records (finished or partial, in
/// `segments/`) are the list of segments done.
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
    let segments: Cache

    init(cache: Cache, key: String) throws(DownloadError) {
        folder = cache.presentationFolder(key: key)
        try FileIO.makePrivateFolder(cache.presentationsDirectory)
        try FileIO.makePrivateFolder(folder)
        segments = try Cache(root: folder + "/segments")
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

    /// The resources to download, each once and in playing order: init sections and segments
    /// (byte ranges of one file share it). Several tracks (a video and its audio) are
    /// interleaved by time, so each feed of the remux gets its next segment early.
    static func resources(of tracks: [StreamTrack]) -> [String] {
        var timed: [(start: Double, playlist: Int, url: String)] = []
        for (index, track) in tracks.enumerated() {
            var start = 0.0
            for segment in track.segments {
                for url in [track.section(of: segment)?.url, segment.url].compactMap({ $0 }) { timed.append((start, index, url)) }
                start += segment.duration
            }
        }
        // Sorted by time, then playlist; the sort keeps each playlist's own order.
        let ordered = timed.enumerated().sorted { a, b in
            (a.element.start, a.element.playlist, a.offset) < (b.element.start, b.element.playlist, b.offset)
        }
        var seen = Set<String>()
        return ordered.map(\.element.url).filter { seen.insert($0).inserted }
    }

    /// How far the segments are: counted over every track, the seconds those of the video
    /// and its audio share (their mean).
    static func progress(of tracks: [StreamTrack], done: Set<String>) -> SegmentProgress {
        var count = 0, finished = 0
        var seconds = 0.0
        for track in tracks {
            for segment in track.segments {
                count += 1
                if done.contains(segment.url), track.section(of: segment).map({ done.contains($0.url) }) ?? true {
                    finished += 1
                    seconds += segment.duration
                }
            }
        }
        let total = tracks.first?.duration ?? 0
        return SegmentProgress(done: finished, count: count, secondsDone: min(total, seconds / Double(max(1, tracks.count))),
                               secondsTotal: total)
    }

    /// The finished file of `url`'s download in `segments/`, if it is whole.
    func finishedPath(of url: String) -> String? {
        guard let entry = segments.entry(for: url), entry.isComplete else { return nil }
        return entry.path
    }

    /// Drops a finished resource whose bytes are unusable (an init section that is not MP4):
    /// its record first, so nothing vouches for the file, then the file. A continue fetches it
    /// again; the other segments stay.
    func forget(_ url: String) {
        guard let entry = segments.entry(for: url), entry.isComplete else { return }
        FileIO.remove(segments.videoRecordPath(Cache.key(for: url)))
        FileIO.remove(entry.path)
    }

    /// Removes the whole folder once the video is in the videos folder, or when nothing of it
    /// is worth keeping.
    ///
    /// Its files go several at once: where the file system discards freed blocks as it goes
    /// (ext4 mounted with `discard`), each unlink waits on the disk (measured here: about 3 ms
    /// a file, and a presentation has three files a segment), and those waits overlap.
    func remove() {
        var files: [String] = []
        var folders = [folder]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            let path = folder + "/" + name
            if enumerator?.fileAttributes?[.type] as? FileAttributeType == .typeDirectory {
                folders.append(path)
            } else {
                files.append(path)
            }
        }
        let doomed = files
        let count = min(Self.removers, doomed.count)
        if count > 0 {
            // Owned by this call and joined before the folders go.
            let removers = Worker(name: "fetchplay remove", threads: count, stage: .downloads, in: nil)
            for worker in 0..<count {
                removers.submit {
                    for index in stride(from: worker, to: doomed.count, by: count) { FileIO.remove(doomed[index]) }
                }
            }
            removers.join()
        }
        // The deepest first; anything left (a file that appeared meanwhile) goes the slow way.
        for path in folders.sorted(by: { $0.count > $1.count }) where rmdir(path) != 0 {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Threads that remove a presentation's files.
    private static let removers = 8
}

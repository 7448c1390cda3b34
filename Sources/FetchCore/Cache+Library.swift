import Foundation

/// What the library needs from the cache beyond the engine's own use: every file of one URL,
/// changes to a finished video's record, and the folder of deleted videos awaiting undo.
extension Cache {
    /// `ROOT/trash`: deleted videos wait here until undone or purged.
    var trashDirectory: String { root + "/trash" }

    /// Every file on disk that belongs to `url` (video, partial, their records, an HLS
    /// presentation's folder), existing or not.
    /// The partial's lock is not among them: it stays, empty, as the engine leaves it.
    func files(of url: String) -> [String] {
        let key = Self.key(for: url)
        let video = loadRecord(at: videoRecordPath(key), key: key).map { videoFile(of: $0, key: key) }
            ?? videoPath(key, url: url)
        return [video, videoRecordPath(key), partialPath(key, "json"), partialPath(key, "context")] + dataFiles(key: key) + [presentationFolder(key: key)]
    }

    /// The data files of `key`'s partial on disk: `KEY.<generation>.part`, and `KEY.part` and
    /// `KEY.new` of older versions.
    func dataFiles(key: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partialDirectory)) ?? []
        return names.filter { name in
            name == "\(key).part" || name == "\(key).new" || (name.hasPrefix(key + ".") && name.hasSuffix(".part"))
        }.sorted().map { partialDirectory + "/" + $0 }
    }

    /// Rewrites the finished record of `url` (atomically); false when there is none.
    @discardableResult
    func updateFinishedRecord(url: String, _ change: (inout DownloadRecord) -> Void) throws(DownloadError) -> Bool {
        let key = Self.key(for: url)
        let path = videoRecordPath(key)
        guard var record = loadRecord(at: path, key: key), record.completed != nil else { return false }
        change(&record)
        try saveRecord(record, at: path)
        return true
    }

    /// Names in the cache that belong to nothing the library knows, for the log: foreign files,
    /// leftovers of interrupted atomic writes, videos whose record is gone.
    func strayFiles(known entries: [LibraryItem]) -> [String] {
        let manager = FileManager.default
        let knownPaths = Set(entries.flatMap { files(of: $0.url) })
        var stray: [String] = []
        // positions.json: playback positions of local files (cached videos keep theirs in the record).
        // hls: unfinished HLS presentations, listed by their own records.
        let rootNames = Set(["partial", "videos", "trash", "hls", LibrarySettings.fileName, "positions.json"])
        for name in (try? manager.contentsOfDirectory(atPath: root)) ?? [] where !rootNames.contains(name) {
            stray.append(root + "/" + name)
        }
        for directory in [videosDirectory, partialDirectory] {
            for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] {
                let path = directory + "/" + name
                if knownPaths.contains(path) || name.hasSuffix(".lock") || isBeingWritten(path) { continue }
                stray.append(path)
            }
        }
        return stray.sorted()
    }

    /// A partial's bytes before its first checkpoint wrote the record: the download holds its lock.
    private func isBeingWritten(_ path: String) -> Bool {
        guard path.hasSuffix(".part") || path.hasSuffix(".new") else { return false }
        let name = (path as NSString).lastPathComponent
        let lock = partialDirectory + "/" + name.prefix(64) + ".lock"
        guard let fd = try? FileIO.open(lock, O_RDONLY) else { return false }
        defer { FileIO.close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }
}

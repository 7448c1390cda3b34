import Foundation

/// What the library needs from the cache beyond the engine's own use: every file of one URL,
/// changes to a finished video's record, and the folder of deleted videos awaiting undo.
extension Cache {
    /// `ROOT/trash`: deleted videos wait here until undone or purged.
    var trashDirectory: String { root + "/trash" }

    /// Every file on disk that belongs to `url` (video and the files saved beside it, partial,
    /// their records and request context, an HLS presentation's folder, yt-dlp's folder), existing or not. `partials`: a listing of
    /// `partial/` already made (a caller handling many URLs lists it once).
    /// The partial's lock is not among them: it belongs to whoever holds it, and goes with them.
    func files(of url: String, partials: PartialFolder? = nil) -> [String] {
        let key = Self.key(for: url)
        let record = loadRecord(at: videoRecordPath(key), key: key)
        let video = record.map { videoFile(of: $0, key: key) } ?? videoPath(key, url: url)
        // Beside the video only: a record is outside input, and names nothing else.
        let folder = (video as NSString).deletingLastPathComponent
        let companions = (record?.companions ?? []).filter { ($0 as NSString).deletingLastPathComponent == folder && $0 != video }
        return [video] + companions + files(key: key, url: url, partials: partials ?? partialFolder())
    }

    /// The files of `key` but its finished video, which only its record names.
    private func files(key: String, url: String, partials: PartialFolder) -> [String] {
        [videoRecordPath(key), partialPath(key, "json"), partialPath(key, "context")]
            + partials.dataFiles(key: key).map { partialDirectory + "/" + $0 }
            + [presentationFolder(key: key), siteDownloadFolder(key: key)]
    }

    /// The data files of `key`'s partial on disk: `KEY.<generation>.part`, and `KEY.part` and
    /// `KEY.new` of older versions.
    func dataFiles(key: String) -> [String] {
        partialFolder().dataFiles(key: key).map { partialDirectory + "/" + $0 }
    }

    /// One listing of `partial/`, its names grouped by key.
    func partialFolder() -> PartialFolder { PartialFolder(names: FileIO.names(in: partialDirectory)) }

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
        strayFiles(known: entries, partials: partialFolder())
    }

    /// The same from a listing of `partial/` already made: one pass over the folders, and the
    /// known files of each item from its listed item (its video is the item's path), not from
    /// reading its record again.
    func strayFiles(known entries: [LibraryItem], partials: PartialFolder) -> [String] {
        var knownPaths = Set<String>()
        /// "Name." of each video: its companions beside it (`Name.en.vtt`) are its own.
        var videoStems = Set<String>()
        for entry in entries {
            let key = Self.key(for: entry.url)
            knownPaths.insert(entry.path)
            videoStems.insert((entry.path as NSString).deletingPathExtension + ".")
            knownPaths.insert(videoPath(key, url: entry.url))
            knownPaths.formUnion(files(key: key, url: entry.url, partials: partials))
        }
        var stray: [String] = []
        // positions.json: playback positions of local files (cached videos keep theirs in the record).
        // hls: unfinished HLS presentations, listed by their own records; sites: yt-dlp's files.
        let rootNames = Set(["partial", "videos", "trash", "hls", "sites", "thumbnails", LibrarySettings.fileName, "positions.json"])
        for name in FileIO.names(in: root) where !rootNames.contains(name) {
            stray.append(root + "/" + name)
        }
        for (directory, names) in [(videosDirectory, FileIO.names(in: videosDirectory)), (partialDirectory, partials.names)] {
            for name in names {
                let path = directory + "/" + name
                if knownPaths.contains(path) || name.hasSuffix(".lock") || isBeingWritten(path) { continue }
                if directory == videosDirectory, let dot = name.firstIndex(of: "."),
                   videoStems.contains(directory + "/" + name[..<dot] + ".") { continue }
                stray.append(path)
            }
        }
        return stray.sorted()
    }

    /// A partial's bytes before its first checkpoint wrote the record: the download holds its lock.
    /// The request context is written before the first record too.
    func isBeingWritten(_ path: String) -> Bool {
        guard path.hasSuffix(".part") || path.hasSuffix(".new") || path.hasSuffix(".context") else { return false }
        let name = (path as NSString).lastPathComponent
        return PartialLock.isHeld(partialDirectory + "/" + name.prefix(64) + ".lock")
    }
}

/// The names in `partial/` from one listing, grouped by the key they start with.
struct PartialFolder {
    let names: [String]
    private let byKey: [Substring: [String]]

    init(names: [String]) {
        self.names = names
        byKey = Dictionary(grouping: names.filter { $0.utf8.count > 65 }) { $0.prefix(64) }
    }

    /// Keys that have a record (`KEY.json`).
    var recordKeys: [String] {
        names.filter { $0.utf8.count == 64 + 5 && $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
    }

    /// `KEY.<generation>.part`, `KEY.part` and `KEY.new`, sorted.
    func dataFiles(key: String) -> [String] {
        (byKey[Substring(key)] ?? []).filter { name in
            name == "\(key).part" || name == "\(key).new" || (name.hasPrefix(key + ".") && name.hasSuffix(".part"))
        }.sorted()
    }

    func contains(_ name: String) -> Bool { byKey[name.prefix(64)]?.contains(name) ?? false }
}

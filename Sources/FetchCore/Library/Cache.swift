import CGLib
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The folders where partial and finished videos live, and what is in them.
///
/// ```
/// ROOT/partial/KEY.G.part   bytes so far, in ranges   VIDEOS/Name.ext       finished video
/// ROOT/partial/KEY.json     their record, naming G    ROOT/videos/KEY.json  its record, naming it
/// ROOT/partial/KEY.lock     one writer at a time (there only while a writer holds it)
/// ROOT/partial/KEY.context  the request's context (mode 0600), kept as long as KEY.json
/// (G: a generation, new when a download starts over; `KEY.part` in older versions, whose
/// finished videos are `ROOT/videos/KEY.EXT`)
/// ```
/// VIDEOS is the folder people find their videos in: `~/Videos/Fetchplay` for the app, and
/// `ROOT/videos` when none is given (scripts and tests stay inside their cache).
/// Everything under ROOT is its owner's alone (folders 0700, files 0600: `FileIO`); VIDEOS
/// keeps a person's usual modes, and a video placed there is 0644.
/// KEY is the SHA-256 of the URL's identity (`WebAddress.identity`); names on disk never come
/// from the server, and a record counts only when its URL hashes to its name.
public final class Cache: Sendable {
    public let root: String
    let partialDirectory: String
    /// Where the records of finished videos are (and the videos of older versions).
    let videosDirectory: String
    /// Where finished videos go, under their names; Preferences may change it while downloads
    /// run (`setVideoFolder`), so it is read under a lock each time a video is placed.
    public var videoFolder: String { currentVideoFolder.withLock { $0 } }
    private let currentVideoFolder: Locked<String>

    /// Opens (and creates) the cache at `root`, its finished videos going to `videos` (default
    /// `ROOT/videos`).
    public init(root given: String, videos: String? = nil) throws(DownloadError) {
        // Absolute, so every path Fetchplay prints or hands on works from anywhere.
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        let root = absolute(given)
        self.root = root
        partialDirectory = root + "/partial"
        videosDirectory = root + "/videos"
        let videoFolder = videos.map(absolute) ?? videosDirectory
        currentVideoFolder = Locked(videoFolder)
        // The cache is its owner's alone; the root may be a person's symlink to a folder.
        try FileIO.makePrivateFolder(root, followingLink: true)
        try FileIO.makePrivateFolder(partialDirectory)
        try FileIO.makePrivateFolder(videosDirectory)
        if videoFolder != videosDirectory { try Self.createFolder(videoFolder) }
    }

    /// Sends the videos that finish from now on to `folder` (an absolute path, created if
    /// missing); the videos already placed stay where they are and their records keep naming them.
    public func setVideoFolder(_ folder: String) throws(DownloadError) {
        guard folder.hasPrefix("/") else {
            throw .fileSystem(String(format: tr("cannot create the folder %1$@"), folder))
        }
        try Self.createFolder(folder)
        currentVideoFolder.withLock { $0 = folder }
    }

    /// Creates a folder of the person's (the videos folder) with the modes their folders have.
    private static func createFolder(_ directory: String) throws(DownloadError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(String(format: tr("cannot create the folder %1$@"), directory))
        }
    }

    /// The videos folder's `Fetchplay` (`$XDG_VIDEOS_DIR`, as GLib reads user-dirs.dirs), else
    /// `~/Videos/Fetchplay`.
    public static func defaultVideoFolder() -> String {
        if let videos = g_get_user_special_dir(G_USER_DIRECTORY_VIDEOS) {
            return String(cString: videos) + "/Fetchplay"
        }
        return String(cString: g_get_home_dir()) + "/Videos/Fetchplay"
    }

    /// `FETCHPLAY_CACHE_DIR`, else `$XDG_CACHE_HOME/fetchplay`, else `~/.cache/fetchplay`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["FETCHPLAY_CACHE_DIR"], !dir.isEmpty { return dir }
        return BaseFolder.path("XDG_CACHE_HOME", else: ".cache", in: environment) + "/fetchplay"
    }

    /// The cache key of a URL: the SHA-256 in hex of its identity (normalised, no password), so
    /// two spellings of one link are one video. Public for what keeps a note of a link outside
    /// the cache without writing the link itself (a link may carry a token).
    public static func key(for url: String) -> String {
        if let known = keys.withLock({ $0[url] }) { return known }
        let key = computeKey(for: url)
        remember(key, for: url)
        return key
    }

    /// Keys already computed: the library asks for each record's key more than once per
    /// reading, and every reading after the first asks for the same ones.
    private static let keys = Locked<[String: String]>([:])

    private static func computeKey(for url: String) -> String {
        digest((try? WebAddress.identity(url)) ?? url)
    }

    /// The SHA-256 of `text`, in hex.
    static func digest(_ text: String) -> String {
        String(glibTaking: g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1))!
    }

    /// Whether `key` is the key of `url`, as a record's name must be. Records store the link's
    /// identity, already normal, so its digest as written is the key: a library of thousands is
    /// checked without parsing every link again (most of a listing's time). A link stored in
    /// another spelling is normalised first.
    static func isKey(_ key: String, of url: String) -> Bool {
        if let known = keys.withLock({ $0[url] }) { return known == key }
        guard digest(url) == key else { return Self.key(for: url) == key }
        remember(key, for: url)
        return true
    }

    private static func remember(_ key: String, for url: String) {
        keys.withLock { keys in
            // Bounded: a long session of links never grows it past this.
            if keys.count >= 50_000 { keys.removeAll(keepingCapacity: true) }
            keys[url] = key
        }
    }

    func partialPath(_ key: String, _ suffix: String) -> String { "\(partialDirectory)/\(key).\(suffix)" }
    func videoRecordPath(_ key: String) -> String { "\(videosDirectory)/\(key).json" }

    /// The finished file's path: the key plus the URL's extension when it looks like one, so
    /// file managers recognise the video. The extension comes from the URL the person entered.
    func videoPath(_ key: String, url: String) -> String {
        "\(videosDirectory)/\(key)" + (Self.fileExtension(of: url).map { ".\($0)" } ?? "")
    }

    static func fileExtension(of url: String) -> String? {
        guard let name = WebAddress.lastPathSegment(of: url), let dot = name.lastIndex(of: ".") else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return ext
    }

    // MARK: Records

    /// The record at `path`, trusted only when its URL hashes to `key` (its file name): a
    /// record copied or planted under another URL's name is a stray, never continued or listed.
    func loadRecord(at path: String, key: String) -> DownloadRecord? {
        guard let data = FileIO.readSmallFile(path) else { return nil }
        let record: DownloadRecord
        do {
            record = try DownloadRecord.decoded(from: data)
        } catch {
            Log.warning("skipping unreadable record \(path): \(error)")
            return nil
        }
        // Reported once as a stray by the library, not here at every look.
        return Self.isKey(key, of: record.url) ? record : nil
    }

    /// Replaces the record at `path` atomically and durably.
    func saveRecord(_ record: DownloadRecord, at path: String) throws(DownloadError) {
        try FileIO.replaceAtomically(path: path, contents: record.encoded())
    }

    // MARK: Listing

    /// Every finished and partial video, newest first. Unreadable records are skipped and logged.
    public func entries() -> [LibraryItem] { entries(partials: partialFolder()) }

    /// The same from one listing of `partial/` made by the caller: one pass over the records,
    /// each read once, so the cost grows with the library and not with its square.
    ///
    /// - Parameter batch: called with the finished videos read so far, every `batchSize`
    ///   records, so a window can show the first rows while the rest are read.
    func entries(partials: PartialFolder, batch: (([LibraryItem]) -> Void)? = nil) -> [LibraryItem] {
        var result: [LibraryItem] = []
        var listed = Set<String>()
        var missing: [String: LibraryItem] = [:]
        for name in Self.recordNames(in: videosDirectory) {
            let key = String(name.dropLast(5))
            guard let entry = finishedEntry(key: key) else { continue }
            if entry.isMissing { missing[key] = entry; continue }
            listed.insert(key)
            result.append(entry)
            if let batch, result.count % Self.batchSize == 0 { batch(result) }
        }
        for key in partials.recordKeys {
            guard !listed.contains(key), let entry = partialEntry(key: key) else { continue }
            // Downloading it again: the partial is what there is now.
            missing[key] = nil
            listed.insert(key)
            result.append(entry)
        }
        for entry in presentationEntries() + siteEntries() {
            let key = Self.key(for: entry.url)
            guard !listed.contains(key) else { continue }
            missing[key] = nil
            listed.insert(key)
            result.append(entry)
        }
        result += missing.values
        return result.sorted { $0.isListed(before: $1) }
    }

    /// What the cache holds for `url`: finished, partial (a file, a presentation, a download by
    /// yt-dlp), or nothing.
    public func entry(for url: String) -> LibraryItem? {
        let key = Self.key(for: url)
        let finished = finishedEntry(key: key)
        if let finished, !finished.isMissing { return finished }
        return partialEntry(key: key) ?? presentationEntry(key: key) ?? siteEntry(key: key) ?? finished
    }

    /// Records per batch of `entries(partials:batch:)`.
    static let batchSize = 500

    static func recordNames(in directory: String) -> [String] {
        FileIO.names(in: directory).filter { $0.utf8.count == 64 + 5 && $0.hasSuffix(".json") }
    }

    /// A finished video counts only when its record and its file agree on the length. One whose
    /// file is gone (renamed, moved or deleted outside Fetchplay) is listed as missing.
    func finishedEntry(key: String) -> LibraryItem? {
        guard let record = loadRecord(at: videoRecordPath(key), key: key), record.completed != nil else { return nil }
        let path = videoFile(of: record, key: key)
        guard let size = FileIO.size(of: path), size == record.total ?? size else {
            var missing = LibraryItem(record: record, isComplete: false, bytesDone: 0, path: path)
            missing.isMissing = true
            return missing
        }
        return LibraryItem(record: record, isComplete: true, bytesDone: size, path: path)
    }

    /// Moves a finished file into the videos folder under its own name, never over a file that
    /// is there ("Name (2).ext" and on), and saves `record` naming it. The record is saved first:
    /// it counts only once a file of its length is there, so a crash between the two leaves
    /// what was there before (a partial that completes again). Returns the video's path.
    func placeVideo(_ source: String, record: inout DownloadRecord, key: String) throws(DownloadError) -> String {
        let name = VideoName.make(suggested: record.displayName, contentType: record.contentType, sniffed: record.sniffedType)
        var destination = ""
        let videoFolder = videoFolder // one folder for the whole placement, whatever changes meanwhile
        // Out of the cache, a video is a person's file like any other (0644); one that stays in
        // it (a segment, or `ROOT/videos` with no videos folder given) stays the owner's alone.
        if !videoFolder.hasPrefix(root + "/") { try FileIO.makeReadable(source) }
        for number in 1... {
            destination = videoFolder + "/" + VideoName.numbered(name, number)
            guard FileIO.size(of: destination) == nil, !FileManager.default.fileExists(atPath: destination) else { continue }
            record.file = destination
            try saveRecord(record, at: videoRecordPath(key))
            if try FileIO.moveWithoutReplacing(source, to: destination) { break }
        }
        try FileIO.syncDirectory(videoFolder)
        return destination
    }

    /// Moves `source` beside the placed `video`, named as it is with `suffix` for its extension
    /// ("Name.mp4" → "Name.en.vtt"), never over a file already there (then nil). Readable by
    /// others as the video is, out of the cache.
    func placeBeside(_ video: String, _ source: String, suffix: String) throws(DownloadError) -> String? {
        let folder = (video as NSString).deletingLastPathComponent
        let name = ((video as NSString).lastPathComponent as NSString).deletingPathExtension
        let destination = folder + "/" + name + "." + suffix
        if !folder.hasPrefix(root + "/") { try FileIO.makeReadable(source) }
        guard try FileIO.moveWithoutReplacing(source, to: destination) else { return nil }
        try FileIO.syncDirectory(folder)
        return destination
    }

    /// The finished video a record names (older records: `ROOT/videos/KEY.EXT`).
    func videoFile(of record: DownloadRecord, key: String) -> String {
        record.file ?? videoPath(key, url: record.url)
    }

    /// The file holding `url`'s bytes now and which of them it holds (a finished video holds
    /// all), for a reader playing it while no download runs.
    func bytesOnDisk(for url: String) -> (path: String, ranges: ByteRanges, total: Int64?)? {
        let key = Self.key(for: url)
        if let finished = finishedEntry(key: key), finished.isComplete {
            return (finished.path, ByteRanges(prefix: finished.bytesDone), finished.bytesDone)
        }
        guard let record = loadRecord(at: partialPath(key, "json"), key: key), record.durableBytes > 0 else { return nil }
        return (partialDirectory + "/" + record.dataFileName(key: key), record.durable, record.total)
    }

    func partialEntry(key: String) -> LibraryItem? {
        guard let record = loadRecord(at: partialPath(key, "json"), key: key) else { return nil }
        return LibraryItem(record: record, isComplete: false, bytesDone: record.durableBytes,
                           path: partialDirectory + "/" + record.dataFileName(key: key))
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Finished videos under their own names, in a folder people look in.
struct VideoNameTests {
    @Test(arguments: [
        ("Holiday.mp4", "video/mp4", "Holiday.mp4"),
        ("../../etc/passwd", "video/mp4", "passwd.mp4"),
        (".hidden.webm", "video/webm", "hidden.webm"),
        ("a\u{0}b\u{7}c.webm", "video/webm", "abc.webm"),
        ("clip", "video/webm", "clip.webm"),
        ("movie.m4v", "video/mp4", "movie.m4v"),
        ("film.MKV", "video/x-matroska", "film.MKV"),
        ("clip.webm", nil, "clip.webm"),
        ("clip.webm", "application/octet-stream", "clip.webm"),
        ("", "video/mp4", "video.mp4"),
        ("Mr.Bean", "video/webm", "Mr.Bean.webm"),
    ] as [(String, String?, String)])
    func safeNamesWithTheRightExtension(_ suggested: String, _ type: String?, _ name: String) {
        #expect(VideoName.make(suggested: suggested, contentType: type, sniffed: nil) == name)
    }

    /// The name, the server's label, what the bytes showed, and the name in the videos folder:
    /// it always ends in a media extension that fits the bytes, else the label.
    @Test(arguments: [
        ("Holiday.jar", "application/java-archive", "video/webm", "Holiday.webm"),
        ("setup.exe", "video/mp4", nil, "setup.mp4"),
        ("x.desktop", nil, "video/webm", "x.webm"),
        ("a.sh", "text/plain", "audio/mpeg", "a.mp3"),
        ("clip.mp4.exe", nil, "video/mp4", "clip.mp4"),
        ("clip.mp4.exe", "video/mp4", "video/webm", "clip.webm"),
        ("clip.mp4", "text/plain", "video/webm", "clip.webm"),
        ("clip.mp4", "video/mp4", nil, "clip.mp4"),
        ("notes.txt", "video/mp4", nil, "notes.mp4"),
        ("backup.tar.gz", nil, "audio/x-opus+ogg", "backup.opus"),
        ("song.ogg", "application/octet-stream", "audio/x-vorbis+ogg", "song.ogg"),
        ("talk", nil, "audio/mp4", "talk.m4a"),
        ("stream", nil, "video/mp2t", "stream.ts"),
        ("film", nil, "application/x-matroska", "film.mkv"),
        ("Holiday.AppImage", "application/octet-stream", nil, "Holiday.mp4"),
        ("clip", nil, nil, "clip.mp4"),
        ("clip.webm", nil, nil, "clip.webm"),
        ("a. .exe", nil, nil, "a.mp4"),
        // A page's title with the media's extension after it, or a server's name so made.
        ("Setup.exe.mp4", "video/mp4", nil, "Setup.mp4"),
        ("Holiday.desktop.sh.webm", nil, "video/webm", "Holiday.webm"),
        ("a.sh .mp4", nil, "video/mp4", "a.mp4"),
        (".exe.mp4", nil, "video/mp4", "exe.mp4"),
        ("x.jar.mp4", nil, "video/webm", "x.webm"),
        ("hidden.exe.", nil, "video/mp4", "hidden.mp4"),
    ] as [(String, String?, String?, String)])
    func aSavedFileNeverKeepsANonMediaExtension(_ suggested: String, _ label: String?, _ sniffed: String?, _ name: String) {
        #expect(VideoName.make(suggested: suggested, contentType: label, sniffed: sniffed) == name)
    }

    /// No leading dot or blank however many there are, and no character that hides or reorders
    /// what a name says (U+202E shows `Holiday4pm.exe` as `Holidayexe.mp4`).
    @Test(arguments: [
        (". .x", "x"), (" . .. x.webm", "x.webm"), ("..\u{3000}.x", "x"),
        ("Holiday\u{202E}4pm.exe", "Holiday4pm.exe"), ("cl\u{200B}ip\u{200D}\u{FEFF}.webm", "clip.webm"),
        ("a\u{85}b\u{9F}c.webm", "abc.webm"), ("a\u{2028}b\u{2029}c", "abc"), ("\u{202E}.x", "x"),
        ("tab\there\n.webm", "tabhere.webm"), ("\u{200B}", nil),
    ] as [(String, String?)])
    func namesLoseLeadingDotsAndHiddenCharacters(_ raw: String, _ name: String?) {
        #expect(DisplayName.sanitize(raw) == name)
        if let name {
            let saved = VideoName.make(suggested: raw, contentType: "video/webm", sniffed: nil)
            #expect(!saved.hasPrefix(".") && !saved.unicodeScalars.contains { $0.properties.generalCategory == .format })
            #expect(saved.hasPrefix(String(name.prefix(while: { $0 != "." }))))
        }
    }

    @Test func longNamesFitInTwoHundredFiftyFiveBytesKeepingTheExtension() {
        let long = String(repeating: "視", count: 200) + ".mp4"
        let name = VideoName.make(suggested: long, contentType: "video/mp4", sniffed: nil)
        #expect(name.utf8.count <= 255 && name.hasSuffix(".mp4"))
        let numbered = VideoName.numbered(name, 12)
        #expect(numbered.utf8.count <= 255 && numbered.hasSuffix(" (12).mp4"))
    }

    @Test func secondVideosOfOneNameAreNumbered() {
        #expect(VideoName.numbered("Clip.mp4", 1) == "Clip.mp4")
        #expect(VideoName.numbered("Clip.mp4", 2) == "Clip (2).mp4")
        #expect(VideoName.numbered("Clip", 3) == "Clip (3)")
    }
}

/// Downloads that end in the videos folder under their names, never over another file.
struct NamedVideoTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 50_000, seed: 61)

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    private func download(_ path: String, into cache: Cache? = nil, headers: [HTTPHeader] = []) throws -> String {
        server.serve(String(path.prefix { $0 != "?" }), body: Self.body, etag: "\"n\"", headers: headers)
        let task = try DownloadTask(url: server.url(path), cache: cache ?? harness.cache,
                                    options: DownloadHarness.quickOptions) { _ in }
        task.start()
        return try #require(task.wait().completedPath)
    }

    @Test func theNameComesFromTheServerElseTheLink() throws {
        let fromLink = try download("/media/Summer%20Trip.webm")
        #expect(fromLink == harness.cache.root + "/videos/Summer Trip.webm")
        let fromServer = try download("/get?id=7", headers: [
            HTTPHeader("Content-Type", "video/mp4"),
            HTTPHeader("Content-Disposition", "attachment; filename=\"fallback.mp4\"; filename*=UTF-8''na%C3%AFve%20clip.mp4"),
        ])
        #expect(fromServer == harness.cache.root + "/videos/naïve clip.mp4")
        #expect(try sha256Hex(ofFile: fromServer) == sha256Hex(of: Self.body))
    }

    /// A real video the server calls `Holiday.jar` lands as `Holiday.webm`: its bytes name it.
    @Test func aVideoNamedAsAProgramLandsUnderItsMediaExtension() throws {
        let clip = Array(try Data(contentsOf: URL(fileURLWithPath: Clips.webm(seconds: 1))))
        server.serve("/get", body: clip, etag: "\"j\"", headers: [
            HTTPHeader("Content-Type", "application/java-archive"), HTTPHeader("Content-Disposition", "attachment; filename=\"Holiday.jar\""),
        ])
        let path = try #require(try harness.download(server.url("/get")).completedPath)
        #expect(path == harness.cache.videoFolder + "/Holiday.webm")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clip))
        let key = Cache.key(for: server.url("/get"))
        let record = try #require(harness.cache.loadRecord(at: harness.cache.videoRecordPath(key), key: key))
        #expect(record.sniffedType == "video/webm" && record.unjudged == nil)
    }

    @Test func aFileOfTheSameNameIsNeverOverwritten() throws {
        let folder = harness.cache.videoFolder
        let foreign = Data("someone else's file".utf8)
        FileManager.default.createFile(atPath: folder + "/clip.webm", contents: foreign)
        let first = try download("/a/clip.webm")
        let second = try download("/b/clip.webm")
        #expect(first == folder + "/clip (2).webm")
        #expect(second == folder + "/clip (3).webm")
        #expect(FileManager.default.contents(atPath: folder + "/clip.webm") == foreign)
    }

    @Test func aVideoGoneFromItsFolderIsMissingAndDownloadsAgain() throws {
        let path = try download("/clip.webm")
        try FileManager.default.removeItem(atPath: path)
        let url = server.url("/clip.webm")
        let entry = try #require(Library(cache: harness.cache).reload().first)
        #expect(entry.isMissing && !entry.isComplete && entry.url == url)
        let again = try download("/clip.webm")
        #expect(again == path)
        #expect(Library(cache: harness.cache).reload().first?.isComplete == true)
    }

    @Test func videosInAFolderOfTheirOwnAreDeletedAndRestored() throws {
        let videos = harness.folder.file("My Videos")
        let cache = try Cache(root: harness.folder.file("other-cache"), videos: videos)
        let path = try download("/clip.webm", into: cache)
        #expect(path == videos + "/clip.webm")
        let library = Library(cache: cache)
        library.reload()
        let deletion = try library.delete(url: server.url("/clip.webm"))
        #expect(!FileManager.default.fileExists(atPath: path))
        try library.undo(deletion)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: Self.body))
        #expect(try FileManager.default.contentsOfDirectory(atPath: videos) == ["clip.webm"])
    }

    /// Preferences' videos folder: the next video goes to the new folder, the earlier ones stay
    /// where they are and are still listed.
    @Test func aNewVideosFolderTakesTheNextVideo() throws {
        let first = try download("/first.webm")
        let chosen = harness.folder.file("Chosen/Videos")
        try harness.cache.setVideoFolder(chosen)
        #expect(harness.cache.videoFolder == chosen)
        #expect(FileManager.default.fileExists(atPath: chosen), "the folder is made")
        let second = try download("/second.webm")
        #expect(second == chosen + "/second.webm")
        #expect(try sha256Hex(ofFile: first) == sha256Hex(of: Self.body), "the earlier video stays")
        #expect(Set(Library(cache: harness.cache).reload().filter(\.isComplete).map(\.path)) == [first, second])
        #expect(throws: DownloadError.self) { try harness.cache.setVideoFolder("relative/folder") }
        #expect(harness.cache.videoFolder == chosen)
    }

    @Test func anOlderCachesHashNamedVideoStillCounts() throws {
        let url = server.url("/old.webm")
        let key = Cache.key(for: url)
        var record = DownloadRecord(url: url, displayName: "old.webm")
        record.total = Int64(Self.body.count)
        record.durableBytes = record.total!
        record.completed = Date()
        FileManager.default.createFile(atPath: harness.cache.videoPath(key, url: url), contents: Data(Self.body))
        try harness.cache.saveRecord(record, at: harness.cache.videoRecordPath(key))
        let entry = try #require(harness.cache.entry(for: url))
        #expect(entry.isComplete && entry.path == harness.cache.root + "/videos/\(key).webm")
    }
}

/// A videos folder on another file system than the cache: the bytes are copied, synced, and only
/// then is the partial removed (needs root for the tmpfs, as CI is).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct VideoFolderElsewhereTests {
    @Test func finishingAcrossFileSystemsCopiesExactly() throws {
        let mountPoint = try TemporaryDirectory(prefix: "fetchplay-videos-fs")
        #expect(Command.runShell("mount -t tmpfs -o size=8m tmpfs '\(mountPoint.path)'") == 0)
        defer { _ = Command.runShell("umount -l '\(mountPoint.path)'") }
        let server = try FaultServer()
        let body = TestData.bytes(count: 300_000, seed: 62)
        server.serve("/far.webm", body: body, etag: "\"f\"")
        let harness = try DownloadHarness()
        let cache = try Cache(root: harness.folder.file("cache"), videos: mountPoint.path + "/Fetchplay")
        let task = try DownloadTask(url: server.url("/far.webm"), cache: cache, options: DownloadHarness.quickOptions) { _ in }
        task.start()
        let path = try #require(task.wait().completedPath)
        #expect(path == mountPoint.path + "/Fetchplay/far.webm")
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path + "/Fetchplay") == ["far.webm"])
        #expect(cache.dataFiles(key: Cache.key(for: server.url("/far.webm"))).isEmpty)
    }
}

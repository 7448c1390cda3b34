@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// What a download leaves in the cache once it is done (nothing but the video and its record),
/// and the leftovers of older versions the library tidies when it starts.
struct CacheTidyTests {
    let server: FaultServer
    let harness: DownloadHarness

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    func write(_ cache: Cache, _ relative: String, _ text: String = "") throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: cache.root + "/" + relative))
    }

    func exists(_ cache: Cache, _ relative: String) -> Bool { FileManager.default.fileExists(atPath: cache.root + "/" + relative) }

    @Test func aFinishedDownloadAndADeletedOneLeaveNoLockOrTemporaryFile() throws {
        let body = TestData.bytes(count: 200_000)
        server.serve("/v.webm", body: body, etag: "\"v\"")
        let url = server.url("/v.webm")
        let cache = harness.cache
        let path = try #require(try harness.download(url).completedPath)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        let key = Cache.key(for: url)
        #expect(Set(harness.filesInCache()) == ["partial", "videos", "videos/\(key).json", "videos/v.webm"],
                "left in the cache: \(harness.filesInCache())")

        let library = Library(cache: cache)
        library.reload()
        let deletion = try library.delete(url: url)
        library.commit(deletion)
        #expect(harness.filesInCache() == ["partial", "videos"], "left after the deletion: \(harness.filesInCache())")
    }

    @Test func aLockIsThereOnlyWhileItIsHeldAndAStaleOneIsNoObstacle() throws {
        let cache = harness.cache
        let key = Cache.key(for: "http://example.com/a.webm")
        let lockPath = cache.partialPath(key, "lock")
        do {
            let lock = try PartialLock(cache: cache, key: key)
            #expect(FileManager.default.fileExists(atPath: lockPath))
            #expect(throws: DownloadError.busy) { try PartialLock(cache: cache, key: key) }
            withExtendedLifetime(lock) {}
        }
        #expect(!FileManager.default.fileExists(atPath: lockPath))
        // An older version's lock file, unheld: taken as usual, and gone with its holder.
        try write(cache, "partial/\(key).lock")
        do { _ = try PartialLock(cache: cache, key: key) }
        #expect(!FileManager.default.fileExists(atPath: lockPath))
    }

    @Test func leftoversOfOlderVersionsGoAndEverythingElseStays() throws {
        let kept = "http://example.com/kept.webm", orphan = "http://example.com/gone.webm"
        let held = "http://example.com/running.webm"
        let keptKey = Cache.key(for: kept), orphanKey = Cache.key(for: orphan), heldKey = Cache.key(for: held)
        let fixture = try LibraryFixture()
        let cache = fixture.cache
        try fixture.partial(kept, bytes: TestData.bytes(count: 1000), total: 3000)
        // Unheld locks of older versions: of a partial, of nothing.
        try write(cache, "partial/\(keptKey).lock")
        try write(cache, "partial/\(orphanKey).lock")
        // A request context beside its record stays; one whose partial went does not.
        try write(cache, "partial/\(keptKey).context", "secret")
        try write(cache, "partial/\(orphanKey).context", "secret")
        // A download running in another process: its lock and its first context stay.
        let lock = try PartialLock(cache: cache, key: heldKey)
        try write(cache, "partial/\(heldKey).context", "secret")
        // Temporary files of atomic writes: of a process that is gone, and of this one.
        let gone = Self.pidOfAnEndedProcess()
        try write(cache, "videos/\(keptKey).json.tmp-\(gone)-12345")
        try write(cache, "partial/\(keptKey).json.tmp-\(gone)-7")
        try write(cache, "settings.ini.tmp-\(gone)-9")
        try write(cache, "partial/\(orphanKey).json.tmp-\(getpid())-8")
        // Files Fetchplay never wrote stay (the log names them).
        try write(cache, "notes.txt")
        try write(cache, "partial/readme.tmp-notapid-1")

        #expect(cache.tidyLeftovers() == 6)
        for left in ["partial/\(keptKey).json", "partial/\(keptKey).part", "partial/\(keptKey).context",
                     "partial/\(heldKey).lock", "partial/\(heldKey).context", "partial/\(orphanKey).json.tmp-\(getpid())-8",
                     "notes.txt", "partial/readme.tmp-notapid-1"] {
            #expect(exists(cache, left), "\(left) went")
        }
        for gone in ["partial/\(keptKey).lock", "partial/\(orphanKey).lock", "partial/\(orphanKey).context",
                     "videos/\(keptKey).json.tmp-\(gone)-12345", "partial/\(keptKey).json.tmp-\(gone)-7",
                     "settings.ini.tmp-\(gone)-9"] {
            #expect(!exists(cache, gone), "\(gone) stayed")
        }
        #expect(Library(cache: cache).reload().map(\.url) == [kept])
        withExtendedLifetime(lock) {}
    }

    /// A paused HLS or DASH download keeps its record in `hls/KEY/`, not in `partial/`: its
    /// context (the cookies Continue sends) stays when the library starts.
    @Test func aPausedPresentationKeepsItsContext() throws {
        let cache = harness.cache
        let key = Cache.key(for: "http://example.com/master.m3u8")
        try FileManager.default.createDirectory(atPath: cache.root + "/hls/\(key)", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cache.partialDirectory, withIntermediateDirectories: true)
        try write(cache, "hls/\(key)/presentation.json", "{}")
        try write(cache, "partial/\(key).context", "secret")
        #expect(cache.tidyLeftovers() == 0)
        #expect(exists(cache, "partial/\(key).context"))
    }

    @Test func deletingAndUndoingTakeTheRequestContextAlong() throws {
        let url = "http://example.com/half.webm"
        let fixture = try LibraryFixture()
        let cache = fixture.cache
        try fixture.partial(url, bytes: TestData.bytes(count: 1000), total: 3000)
        let key = Cache.key(for: url)
        try write(cache, "partial/\(key).context", "secret")
        let library = Library(cache: cache)
        library.reload()
        let deletion = try library.delete(url: url)
        #expect(!exists(cache, "partial/\(key).context"))
        try library.undo(deletion)
        #expect(try String(contentsOfFile: cache.partialPath(key, "context"), encoding: .utf8) == "secret")
        #expect(library.reload().map(\.url) == [url])
    }

    /// The id of a process that ran and ended (so no process has it now, barring reuse).
    static func pidOfAnEndedProcess() -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try? process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}

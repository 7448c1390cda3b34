@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The library model on a temporary cache holding finished, partial, corrupt and foreign files.
struct LibraryTests {
    let fixture: LibraryFixture
    let clip = TestData.bytes(count: 40_000, seed: 3)
    let older = TestData.bytes(count: 25_000, seed: 4)
    let half = TestData.bytes(count: 10_000, seed: 5)

    init() throws { fixture = try LibraryFixture() }

    /// Two finished videos, a partial, two corrupt records and foreign files.
    func fill() throws {
        try fixture.finished("http://example.com/clip.webm", bytes: clip, date: Date(timeIntervalSince1970: 2_000_000))
        try fixture.finished("http://example.com/older.mp4", bytes: older, date: Date(timeIntervalSince1970: 1_000_000))
        try fixture.partial("http://example.com/half.webm", bytes: half, total: 30_000)
        try fixture.corruptRecord(for: "http://example.com/broken.webm", inVideos: true)
        try fixture.corruptRecord(for: "http://example.com/broken-part.webm", inVideos: false)
        try fixture.foreignFiles()
    }

    /// The fixture's cache filled and a library read from it.
    func filledLibrary() throws -> Library {
        try fill()
        let library = Library(cache: fixture.cache)
        library.reload()
        return library
    }

    @Test func listsFinishedAndPartialAndSkipsTheRest() throws {
        try fill()
        let library = Library(cache: fixture.cache)
        let items = library.reload()
        #expect(items.map(\.url) == ["http://example.com/half.webm", "http://example.com/clip.webm",
                                     "http://example.com/older.mp4"])
        let clipItem = try #require(items.item(url: "http://example.com/clip.webm"))
        #expect(clipItem.isComplete && clipItem.bytesDone == 40_000 && clipItem.displayName == "clip.webm")
        #expect(clipItem.date == Date(timeIntervalSince1970: 2_000_000))
        #expect(clipItem.fraction == 1)
        let partial = try #require(items.item(url: "http://example.com/half.webm"))
        #expect(!partial.isComplete && partial.bytesDone == 10_000 && partial.total == 30_000)
        #expect(abs((partial.fraction ?? 0) - 1.0 / 3) < 0.001)
        #expect(items.reduce(0) { $0 + $1.bytesDone } == 75_000)
        // Finished ones are ordered newest first.
        let finished = items.filter(\.isComplete).map(\.url)
        #expect(finished == ["http://example.com/clip.webm", "http://example.com/older.mp4"])
    }

    @Test func strayFilesAreNamedForTheLog() throws {
        try fill()
        let entries = fixture.cache.entries()
        let stray = fixture.cache.strayFiles(known: entries).map { String($0.dropFirst(fixture.cache.root.count + 1)) }
        #expect(stray.contains("notes.txt") && stray.contains("videos/holiday.mp4"))
        #expect(stray.contains("somebody-elses-folder") && stray.contains("partial/readme"))
        #expect(stray.contains("videos/x.json.tmp-1-2"))
        let broken = Cache.key(for: "http://example.com/broken.webm")
        #expect(stray.contains("videos/\(broken).json") && stray.contains("videos/\(broken).webm"))
        // Nothing Fetchplay wrote and can read is called stray.
        #expect(!stray.contains { $0.contains(Cache.key(for: "http://example.com/clip.webm")) })
        #expect(!stray.contains { $0.contains(Cache.key(for: "http://example.com/half.webm")) })
    }

    @Test func listIsTheSameFromANewLibraryObject() throws {
        try fill()
        let first = Library(cache: fixture.cache).reload()
        let again = Library(cache: try Cache(root: fixture.cache.root)).reload()
        #expect(first == again)
        #expect(Library(cache: fixture.cache).reload().map(\.url) == fixture.cache.entries().map(\.url))
    }

    @Test func deleteAndUndoRestoreTheExactBytes() throws {
        let library = try filledLibrary()
        let url = "http://example.com/clip.webm"
        let path = try #require(library.reload().item(url: url)?.path)
        let before = fixture.files()
        let deletion = try library.delete(url: url)
        #expect(library.reload().item(url: url) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(Library(cache: fixture.cache).reload().allSatisfy { $0.url != url }, "still listed after a reload")
        #expect(deletion.item.displayName == "clip.webm")

        try library.undo(deletion)
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: clip))
        #expect(library.reload().item(url: url)?.isComplete == true)
        #expect(fixture.files() == before, "undo left the cache different")
    }

    @Test func deleteAndUndoWaitForAWriterToLetGo() throws {
        let url = "http://example.com/half.webm"
        try fixture.partial(url, bytes: TestData.bytes(count: 1000), total: 30_000)
        let library = Library(cache: fixture.cache)
        library.reload()
        // Another window or process downloading this URL holds its lock.
        let writer = try PartialLock(cache: fixture.cache, key: Cache.key(for: url))
        #expect(throws: LibraryError.inUse) { try library.delete(url: url) }
        #expect(library.reload().item(url: url) != nil)
        withExtendedLifetime(writer) {}
    }

    @Test func deletingAPartialAndUndoing() throws {
        let library = try filledLibrary()
        let url = "http://example.com/half.webm"
        let deletion = try library.delete(url: url)
        #expect(fixture.cache.entry(for: url) == nil)
        try library.undo(deletion)
        let entry = try #require(fixture.cache.entry(for: url))
        #expect(try sha256Hex(ofFile: entry.path) == sha256Hex(of: half))
        #expect(entry.bytesDone == 10_000)
    }

    @Test func committedAndPurgedDeletionsAreGone() throws {
        let library = try filledLibrary()
        let first = try library.delete(url: "http://example.com/clip.webm")
        library.commit(first)
        #expect(!fixture.files().contains { $0.hasPrefix("trash/") && $0.count > 6 })
        _ = try library.delete(url: "http://example.com/older.mp4")
        library.purgeTrash()
        #expect(!fixture.files().contains { $0.hasPrefix("trash") })
        #expect(library.reload().map(\.url) == ["http://example.com/half.webm"])
    }

    @Test func busyVideosAreNotDeleted() throws {
        let library = try filledLibrary()
        let item = try #require(library.reload().item(url: "http://example.com/clip.webm"))
        #expect(throws: LibraryError.inUse) { try library.delete(url: item.url, busy: [item.path]) }
        #expect(throws: LibraryError.inUse) { try library.delete(url: item.url, busy: [item.url]) }
        #expect(throws: LibraryError.notFound) { try library.delete(url: "http://example.com/none.webm") }
        #expect(FileManager.default.fileExists(atPath: item.path))
    }

    @Test func undoKeepsANewerDownloadOfTheSameURL() throws {
        let library = try filledLibrary()
        let url = "http://example.com/clip.webm"
        let deletion = try library.delete(url: url)
        let newer = TestData.bytes(count: 5000, seed: 9)
        let path = try fixture.finished(url, bytes: newer)
        #expect(throws: LibraryError.replaced) { try library.undo(deletion) }
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: newer))
    }

    @Test func playedAndDurationSurviveARestart() throws {
        let library = try filledLibrary()
        let url = "http://example.com/older.mp4"
        let played = Date(timeIntervalSince1970: 3_000_000)
        try library.markPlayed(url: url, at: played)
        try library.setDuration(12.5, url: url)
        #expect(library.reload().item(url: url)?.lastPlayed == played)
        let reopened = Library(cache: fixture.cache).reload().first { $0.url == url }
        #expect(reopened?.lastPlayed == played && reopened?.duration == 12.5)
        // A partial has no finished record to mark.
        try library.markPlayed(url: "http://example.com/half.webm")
        #expect(library.reload().item(url: "http://example.com/half.webm")?.lastPlayed == nil)
    }

    @Test func settingsDefaultAndRoundTrip() throws {
        #expect(LibrarySettings.load(from: fixture.cache) == LibrarySettings(maxRunning: 3, sizeCap: nil))
        try LibrarySettings(maxRunning: 2, sizeCap: 1_000_000).save(to: fixture.cache)
        #expect(LibrarySettings.load(from: fixture.cache) == LibrarySettings(maxRunning: 2, sizeCap: 1_000_000))
        try Data("{\"sizeCap\": 5}".utf8).write(to: URL(fileURLWithPath: fixture.cache.root + "/settings.json"))
        #expect(LibrarySettings.load(from: fixture.cache) == LibrarySettings(maxRunning: 3, sizeCap: 5))
        try Data("{\"sizeC".utf8).write(to: URL(fileURLWithPath: fixture.cache.root + "/settings.json"))
        #expect(LibrarySettings.load(from: fixture.cache) == LibrarySettings())
    }
}

extension [LibraryItem] {
    /// The item of `url`, as a window looks one up in what a reading returned.
    func item(url: String) -> LibraryItem? { first { $0.url == url } }
}

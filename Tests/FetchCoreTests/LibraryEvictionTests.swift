@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The size cap: least recently played finished videos go first; partials and what plays stay.
struct LibraryEvictionTests {
    static func item(_ name: String, _ bytes: Int64, complete: Bool = true, day: Double,
                     played: Double? = nil) -> LibraryItem {
        LibraryItem(url: "http://example.com/\(name)", displayName: name, isComplete: complete,
                    bytesDone: bytes, total: bytes, path: "/cache/videos/\(name)",
                    date: Date(timeIntervalSince1970: day * 86_400),
                    lastPlayed: played.map { Date(timeIntervalSince1970: $0 * 86_400) })
    }

    let items = [
        item("a", 100, day: 1, played: 9),   // downloaded first, played last
        item("b", 100, day: 2),              // never played: counts from its download
        item("c", 100, day: 3, played: 4),
        item("p", 100, complete: false, day: 0),
    ]

    @Test func underTheCapNothingGoes() {
        #expect(CacheEviction.victims(in: items, cap: 400).isEmpty)
    }

    @Test func leastRecentlyUsedFirst() {
        #expect(CacheEviction.victims(in: items, cap: 300).map(\.displayName) == ["b"])
        #expect(CacheEviction.victims(in: items, cap: 200).map(\.displayName) == ["b", "c"])
        #expect(CacheEviction.victims(in: items, cap: 150).map(\.displayName) == ["b", "c", "a"])
    }

    @Test func partialsAndProtectedNeverGo() {
        #expect(CacheEviction.victims(in: items, cap: 0).map(\.displayName) == ["b", "c", "a"])
        #expect(CacheEviction.victims(in: items, cap: 0, protected: ["http://example.com/b"])
            .map(\.displayName) == ["c", "a"])
        #expect(CacheEviction.victims(in: items, cap: 0, protected: ["/cache/videos/c"])
            .map(\.displayName) == ["b", "a"])
    }

    @Test func evictionOnDiskRemovesFilesAndRecords() throws {
        let fixture = try LibraryFixture()
        let old = try fixture.finished("http://example.com/old.webm", bytes: TestData.bytes(count: 3000),
                                       date: Date(timeIntervalSince1970: 1000))
        let playing = try fixture.finished("http://example.com/playing.webm", bytes: TestData.bytes(count: 3000),
                                           date: Date(timeIntervalSince1970: 500))
        let recent = try fixture.finished("http://example.com/recent.webm", bytes: TestData.bytes(count: 3000),
                                          date: Date(timeIntervalSince1970: 100), lastPlayed: Date())
        let partial = try fixture.partial("http://example.com/part.webm", bytes: TestData.bytes(count: 3000),
                                          total: 9000)
        let library = Library(cache: fixture.cache)
        let evicted = library.evict(library.reload(), toFit: 7000, protected: [playing])
        #expect(evicted.map(\.displayName) == ["old.webm", "recent.webm"])
        for path in [old, recent] { #expect(!FileManager.default.fileExists(atPath: path)) }
        for path in [playing, partial] { #expect(FileManager.default.fileExists(atPath: path)) }
        #expect(library.reload().map(\.displayName).sorted() == ["part.webm", "playing.webm"])
        #expect(!fixture.files().contains { $0.contains(Cache.key(for: "http://example.com/old.webm") + ".json") })
    }
}

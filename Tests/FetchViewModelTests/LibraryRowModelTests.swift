@testable import FetchCore
import Foundation
import Testing
@testable import FetchViewModel

/// What a library row says, from the cache's item and the queue's entry made one by the store
/// (`StoredVideo`): no GTK.
struct LibraryRowModelTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func shown(items: [LibraryItem], entries: [DownloadQueue.Entry], keeping order: [String] = [],
              now: Date) -> [LibraryRowModel] {
        LibraryRowModel.rows(videos: StoredVideo.all(items: items, entries: entries), keeping: order, now: now)
    }

    func item(_ name: String, complete: Bool, bytes: Int64, total: Int64? = 2_000_000,
              duration: Double? = nil) -> LibraryItem {
        LibraryItem(url: "http://example.com/\(name)", displayName: name, isComplete: complete, bytesDone: bytes,
                    total: total, path: "/cache/\(name)", date: now, duration: duration)
    }

    @Test func finishedVideoShowsSizeDurationDateAndHost() {
        let rows = shown(items: [item("a.webm", complete: true, bytes: 2_000_000, duration: 83)],
                                        entries: [], now: now)
        #expect(rows.map(\.detail) == ["\(StatusText.size(2_000_000)) · 1:23 · Today · example.com"])
        #expect(rows[0].activity == .finished && rows[0].videoPath == "/cache/a.webm" && rows[0].hasDuration)
    }

    /// A video found on a web page is the page's download: its row names the page's host, and
    /// the title the page gave, never the media's.
    @Test func aVideoFromAPageShowsThePagesHost() {
        let page = LibraryItem(url: "https://news.example.org/2026/harbour#video-2", displayName: "Harbour at night",
                               isComplete: true, bytesDone: 1_000, total: 1_000, path: "/cache/h.webm", date: now)
        let row = shown(items: [page], entries: [], now: now)[0]
        #expect(row.title == "Harbour at night" && row.detail.hasSuffix(" · news.example.org"), "\(row.detail)")
    }

    /// A page's download not on disk yet is named as the page named it (what the big ring says),
    /// not after the page's link (it read "watch.html" beside "Harbour at dawn.mp4").
    @Test func aPagesDownloadNotListedYetShowsThePagesName() {
        var entry = DownloadQueue.Entry(url: "https://example.org/watch.html", state: .downloading,
                                        progress: DownloadProgress(bytesDone: 1_000, total: 3_000), isWaiting: false)
        entry.name = "Harbour at dawn.mp4"
        #expect(shown(items: [], entries: [entry], now: now).map(\.title) == ["Harbour at dawn.mp4"])
        entry.name = nil
        #expect(shown(items: [], entries: [entry], now: now).map(\.title) == ["watch.html"])
    }

    @Test func partialFromDiskIsPausedWithItsAmount() {
        let rows = shown(items: [item("p.webm", complete: false, bytes: 500_000)], entries: [], now: now)
        #expect(rows[0].activity == .paused)
        #expect(rows[0].detail == "Paused — \(StatusText.size(500_000)) of \(StatusText.size(2_000_000))")
        #expect(rows[0].fraction == 0.25)
    }

    @Test func theQueueIsTheLiveTruth() {
        let url = "http://example.com/p.webm"
        let running = DownloadQueue.Entry(url: url, state: .downloading,
                                          progress: DownloadProgress(bytesDone: 1_000_000, total: 2_000_000),
                                          isWaiting: false)
        let fresh = DownloadQueue.Entry(url: "http://example.com/new.webm", state: .idle,
                                        progress: DownloadProgress(bytesDone: 0, total: nil), isWaiting: true)
        let rows = shown(items: [item("p.webm", complete: false, bytes: 500_000)],
                                        entries: [running, fresh], now: now)
        #expect(rows.map(\.title) == ["new.webm", "p.webm"], "queue-only downloads come first")
        #expect(rows[0].activity == .waiting && rows[0].detail == "Waiting")
        #expect(rows[1].activity == .downloading && rows[1].fraction == 0.5)
        #expect(rows[1].detail == "\(StatusText.size(1_000_000)) of \(StatusText.size(2_000_000))")
        #expect(LibraryRowModel.summary(rows) == "2 unfinished · \(StatusText.size(1_000_000))")
        let finished = shown(items: [item("a.webm", complete: true, bytes: 2_000_000)], entries: [running],
                                            now: now)
        #expect(LibraryRowModel.summary(finished) == "1 video, 1 unfinished · \(StatusText.size(3_000_000))")
    }

    @Test func durationsAndDates() {
        #expect(LibraryRowModel.duration(42) == "0:42")
        #expect(LibraryRowModel.duration(3723) == "1:02:03")
        #expect(LibraryRowModel.date(now.addingTimeInterval(-86_400), now: now) == "Yesterday")
        #expect(LibraryRowModel.date(now.addingTimeInterval(-10 * 86_400), now: now) != "Today")
    }

    func entry(_ name: String, _ state: DownloadState, bytes: Int64, total: Int64? = 2_000_000,
               speed: Double = 0, left: Double? = nil) -> DownloadQueue.Entry {
        DownloadQueue.Entry(url: "http://example.com/\(name)", state: state,
                            progress: DownloadProgress(bytesDone: bytes, total: total, bytesPerSecond: speed,
                                                       secondsLeft: left),
                            isWaiting: false)
    }

    @Test func aLinkThatFailedWithNothingKeptHasNoRow() {
        let failed = entry("missing.webm", .failed(.httpStatus(code: 404, reason: "Not Found")), bytes: 0, total: nil)
        #expect(shown(items: [], entries: [failed], now: now).isEmpty)
    }

    @Test func aFailureWithBytesKeptSaysWhyBeforeAndAfterARestart() {
        let error = DownloadError.httpStatus(code: 500, reason: "Internal Server Error")
        let live = shown(items: [item("p.webm", complete: false, bytes: 500_000)],
                                        entries: [entry("p.webm", .failed(error), bytes: 500_000)], now: now)
        #expect(live.map(\.detail) == ["Failed: \(error.message)"])
        #expect(live[0].activity == .failed)
        // After a restart only the record knows it.
        var kept = item("p.webm", complete: false, bytes: 500_000)
        kept.failure = error.message
        let restarted = shown(items: [kept], entries: [], now: now)
        #expect(restarted.map(\.detail) == ["Failed: \(error.message)"])
        #expect(restarted[0].activity == .failed)
    }

    @Test func downloadingRowsShowSpeedAndTimeLeft() {
        let rows = shown(items: [], entries: [entry("d.webm", .downloading, bytes: 1_000_000,
                                                                   speed: 250_000, left: 4)], now: now)
        #expect(rows[0].detail == "\(StatusText.amount(DownloadProgress(bytesDone: 1_000_000, total: 2_000_000))) · "
                + "\(StatusText.size(250_000))/s · \(StatusText.timeLeft(4))")
    }

    @Test func rowsShownKeepTheirPlaceAndNewOnesGoOnTop() {
        let a = item("a.webm", complete: true, bytes: 10), b = item("b.webm", complete: false, bytes: 5)
        // The cache now lists b first (it changed last), but the rows shown were a, b.
        let rows = shown(items: [b, a], entries: [entry("c.webm", .downloading, bytes: 1)],
                                        keeping: [a.url, b.url], now: now)
        #expect(rows.map(\.title) == ["c.webm", "a.webm", "b.webm"])
    }

    /// The library read in batches: the older videos of a later batch go under the rows shown,
    /// after the one before them, never above the download that runs on top.
    @Test func rowsReadLaterGoBelowTheShownOnes() {
        let a = item("a.webm", complete: true, bytes: 10), b = item("b.webm", complete: true, bytes: 5)
        let c = item("c.webm", complete: true, bytes: 7), d = item("d.webm", complete: true, bytes: 3)
        let running = entry("new.webm", .downloading, bytes: 1)
        let first = shown(items: [a, c], entries: [running], now: now)
        #expect(first.map(\.title) == ["new.webm", "a.webm", "c.webm"])
        // The whole folder: b between a and c, d last.
        let all = shown(items: [a, b, c, d], entries: [running], keeping: first.map(\.url), now: now)
        #expect(all.map(\.title) == ["new.webm", "a.webm", "b.webm", "c.webm", "d.webm"])
    }
}

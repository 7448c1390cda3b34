import FetchCore
import Foundation
import Testing
@testable import FetchViewModel

@Suite struct StatusTextTests {
    /// The status line with GLib's no-break spaces ("1.5\u{a0}MB") as plain ones.
    func line(state: DownloadState, progress: DownloadProgress?) -> String {
        StatusText.line(state: state, progress: progress).replacingOccurrences(of: "\u{a0}", with: " ")
    }

    @Test(arguments: [
        (0.2, "1 second left"), (5, "5 seconds left"), (59.5, "1 minute left"), (61, "2 minutes left"),
        (3600, "1 hour left"), (3900, "1 hour 5 minutes left"),
    ])
    func timeLeft(seconds: Double, text: String) {
        #expect(StatusText.timeLeft(seconds) == text)
    }

    @Test func downloadingShowsAmountTimeAndSpeed() {
        let progress = DownloadProgress(bytesDone: 1_500_000, total: 3_000_000, bytesPerSecond: 500_000, secondsLeft: 3)
        #expect(line(state: .downloading, progress: progress) == "1.5 MB of 3.0 MB — 3 seconds left (500.0 kB/s)")
    }

    @Test func aRefreshedLinkIsSaidWhileItDownloadsNeverAfter() {
        let progress = DownloadProgress(bytesDone: 1_500_000, total: 3_000_000, bytesPerSecond: 500_000, secondsLeft: 3)
        let downloading = StatusText.line(state: .downloading, progress: progress, linkRefreshed: true)
        #expect(downloading.replacingOccurrences(of: "\u{a0}", with: " ") == "Link refreshed — 1.5 MB of 3.0 MB — 3 seconds left (500.0 kB/s)")
        #expect(!StatusText.line(state: .completed(path: "/v.webm"), progress: progress, linkRefreshed: true).contains("refreshed"))
    }

    @Test func unknownTotalShowsBytesOnly() {
        let progress = DownloadProgress(bytesDone: 2_000_000, total: nil, bytesPerSecond: 1_000_000)
        #expect(line(state: .downloading, progress: progress) == "2.0 MB (1.0 MB/s)")
    }

    @Test func stoppedStates() {
        let progress = DownloadProgress(bytesDone: 1_000_000, total: 4_000_000)
        #expect(line(state: .paused, progress: progress) == "Paused — 1.0 MB of 4.0 MB")
        #expect(line(state: .idle, progress: progress) == "1.0 MB of 4.0 MB — ready to continue")
        #expect(line(state: .failed(.stalled), progress: progress) == "Stopped — 1.0 MB of 4.0 MB kept")
        #expect(line(state: .completed(path: "/v"), progress: .init(bytesDone: 4_000_000, total: 4_000_000))
            == "4.0 MB — ready to play")
    }
}

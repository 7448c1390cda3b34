import FetchCore
import Testing

/// When a video can start before it is complete, and its parts as the seek bar draws them.
struct DownloadCoverageTests {
    static let start = DownloadCoverage.playableStart

    @Test func playableOnceTheStartIsOnDiskAndTheLengthKnown() {
        #expect(DownloadCoverage(spans: [0..<Self.start], total: 100 * Self.start, isRunning: true).canStartPlaying)
        #expect(!DownloadCoverage(spans: [0..<(Self.start - 1)], total: 100 * Self.start, isRunning: true).canStartPlaying)
        // The end first (an MP4's index) is not the start.
        #expect(!DownloadCoverage(spans: [(9 * Self.start)..<(10 * Self.start)], total: 100 * Self.start,
                                  isRunning: true).canStartPlaying)
        // Without a length the player cannot seek: it waits for the checkmark.
        #expect(!DownloadCoverage(spans: [0..<(2 * Self.start)], total: nil, isRunning: true).canStartPlaying)
        // A file shorter than the start plays once whole.
        #expect(DownloadCoverage(spans: [0..<1000], total: 1000, isRunning: false).canStartPlaying)
        #expect(!DownloadCoverage(spans: [0..<999], total: 1000, isRunning: true).canStartPlaying)
        // A small file needs a twentieth of it, never under 64 KiB.
        #expect(DownloadCoverage.neededStart(total: 2_000_000) == 100_000)
        #expect(DownloadCoverage.neededStart(total: 500_000) == DownloadCoverage.smallestStart)
        #expect(DownloadCoverage.neededStart(total: 100_000_000) == Self.start)
    }

    @Test func fractionsOfTheWhole() {
        let coverage = DownloadCoverage(spans: [0..<25, 50..<100], total: 100, isRunning: true)
        #expect(coverage.fractions == [0...0.25, 0.5...1])
        #expect(DownloadCoverage(spans: [0..<25], total: nil, isRunning: true).fractions.isEmpty)
    }
}

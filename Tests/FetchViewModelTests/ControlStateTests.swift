import FetchCore
import Testing
@testable import FetchViewModel

@Suite struct ControlStateTests {
    struct Case: Sendable, CustomStringConvertible {
        let state: DownloadState
        let hasPartial: Bool
        let start, pause, resume, play: Bool
        let tone: RingFrame.Tone
        var description: String { "\(state) partial=\(hasPartial)" }
    }

    /// Start when idle with nothing kept, Try Again after a failure with nothing kept, Pause while
    /// downloading, Continue when paused or stopped with a partial, Play once complete: one way on
    /// at a time.
    static let table: [Case] = [
        Case(state: .idle, hasPartial: false, start: true, pause: false, resume: false, play: false, tone: .paused),
        Case(state: .idle, hasPartial: true, start: false, pause: false, resume: true, play: false, tone: .paused),
        Case(state: .downloading, hasPartial: true, start: false, pause: true, resume: false, play: false, tone: .running),
        Case(state: .paused, hasPartial: true, start: false, pause: false, resume: true, play: false, tone: .paused),
        Case(state: .failed(.stalled), hasPartial: true, start: false, pause: false, resume: true, play: false, tone: .failed),
        Case(state: .failed(.httpStatus(code: 404, reason: "Not Found")), hasPartial: false,
             start: true, pause: false, resume: false, play: false, tone: .failed),
        Case(state: .completed(path: "/v.webm"), hasPartial: false, start: false, pause: false, resume: false, play: true, tone: .done),
    ]

    /// Play also while it downloads or is paused, once the video's start is on disk; never for
    /// another link typed in the entry, and never instead of Pause or Continue.
    @Test func playBeforeTheCheckmarkWhenTheStartIsOnDisk() {
        let progress = DownloadProgress(bytesDone: 50, total: 100)
        for state in [DownloadState.downloading, .paused, .idle] {
            let watching = ControlState(state: state, progress: progress, hasPartial: true, canWatch: true)
            #expect(watching.canPlay, "\(state)")
            #expect(watching.canPause == (state == .downloading) && watching.canContinue == (state != .downloading))
            #expect(!ControlState(state: state, progress: progress, hasPartial: true, canWatch: false).canPlay)
            #expect(!ControlState(state: state, progress: progress, hasPartial: true, entryIsNew: true, canWatch: true).canPlay)
        }
        #expect(!ControlState(state: .failed(.stalled), progress: progress, hasPartial: true, canWatch: true).canPlay)
    }

    @Test(arguments: table)
    func sensitivityFollowsTheState(_ c: Case) {
        let controls = ControlState(state: c.state, progress: .init(bytesDone: c.hasPartial ? 10 : 0, total: 100),
                                    hasPartial: c.hasPartial)
        #expect(controls.canStart == c.start)
        #expect(controls.canPause == c.pause)
        #expect(controls.canContinue == c.resume)
        #expect(controls.canPlay == c.play)
        #expect(controls.ringTone == c.tone)
        #expect((controls.errorMessage != nil) == (c.tone == .failed))
        #expect(!(controls.showsStart && controls.showsRetry), "Start and Try Again together")
        #expect(controls.showsRetry == (c.state.isFailed && !c.hasPartial))
        #expect(controls.showsStart == (c.state == .idle && !c.hasPartial))
    }

    @Test func anotherURLInTheEntryCanStartButNotContinue() {
        let controls = ControlState(state: .paused, progress: .init(bytesDone: 10, total: 100), hasPartial: true,
                                    entryIsNew: true)
        #expect(controls.canStart)
        #expect(!controls.canContinue)
    }

    /// A page whose videos wait for a choice is no failure: no red ring, no error box, Start asks again.
    @Test func aPageWithSeveralVideosWaitsForAChoiceWithoutAFailure() {
        let controls = ControlState(state: .failed(.severalVideos(3)), progress: .init(bytesDone: 0, total: nil), hasPartial: false)
        #expect(controls.ringTone == .paused && controls.errorMessage == nil)
        #expect(controls.showsStart && controls.canStart && !controls.showsRetry && !controls.canContinue)
        #expect(StatusText.line(state: .failed(.severalVideos(3)), progress: .init(bytesDone: 0, total: nil))
                == "This page offers 3 videos; choose which to save.")
    }

    @Test func unknownTotalSpinsOnlyWhileDownloading() {
        let progress = DownloadProgress(bytesDone: 10, total: nil)
        #expect(ControlState(state: .downloading, progress: progress, hasPartial: true).ringFraction == nil)
        #expect(ControlState(state: .paused, progress: progress, hasPartial: true).ringFraction == 0)
    }
}

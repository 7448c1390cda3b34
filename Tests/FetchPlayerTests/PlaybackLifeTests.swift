import Testing
@testable import FetchPlayer

/// The player's reducer alone: events in, phase and effects out, no GStreamer.
struct PlaybackLifeTests {
    /// A phase driven by events, keeping every effect asked for.
    struct Run {
        var phase = PlaybackPhase()
        var effects: [PlaybackEffect] = []

        @discardableResult
        mutating func send(_ events: PlaybackEvent...) -> [PlaybackEffect] {
            var asked: [PlaybackEffect] = []
            for event in events { asked += PlaybackLife.reduce(&phase, event) }
            effects += asked
            return asked
        }

        /// A file opened, its pipeline built and prerolled (paused on its first frame).
        static func prerolled(rate: Double = 1) -> Run {
            var run = Run()
            run.send(.fileOpened(subtitleFile: nil), .pipelineBuilt(rate: rate, resume: nil, playing: false),
                     .reached(.paused), .asyncDone(feedFailure: nil))
            run.effects = []
            return run
        }
    }

    @Test func aBuiltPipelineLoadsUntilBothThePausedStateAndThePrerollAreIn() {
        var run = Run()
        #expect(run.send(.fileOpened(subtitleFile: nil)) == [])
        #expect(run.phase.shown == .idle)
        #expect(run.send(.pipelineBuilt(rate: 1, resume: nil, playing: false)) == [.request(.paused)])
        #expect(run.phase.shown == .loading)
        // The preroll's ASYNC_DONE can come before or after playbin's STATE_CHANGED.
        #expect(run.send(.asyncDone(feedFailure: nil)) == [])
        #expect(run.phase.shown == .loading)
        #expect(run.send(.reached(.paused)) == [.readStreams])
        #expect(run.phase.shown == .paused && run.phase.prerolled)
    }

    @Test func theStateShownChangesOnlyWhenGStreamerConfirmsIt() {
        var run = Run.prerolled()
        #expect(run.send(.play) == [.request(.playing)])
        #expect(run.phase.shown == .paused, "a request alone showed as playing")
        run.send(.reached(.playing))
        #expect(run.phase.shown == .playing)
        run.send(.pause)
        #expect(run.phase.shown == .playing)
        run.send(.reached(.paused))
        #expect(run.phase.shown == .paused)
    }

    @Test func aSeekBeforeTheFirstFrameWaitsAndTheNewestOneRunsAtThePreroll() {
        var run = Run()
        run.send(.fileOpened(subtitleFile: nil), .pipelineBuilt(rate: 1, resume: nil, playing: false))
        #expect(run.send(.seek(3, accurate: false), .seek(7, accurate: true)) == [])
        #expect(run.phase.pendingSeek == .init(seconds: 7, accurate: true))
        run.send(.reached(.paused))
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.readStreams, .seek(7, accurate: true)])
        #expect(run.phase.seekTarget == 7 && run.phase.isSeeking)
        run.send(.asyncDone(feedFailure: nil))
        #expect(!run.phase.isSeeking)
    }

    @Test func aSeekDuringASeekWaitsForItToFinish() {
        var run = Run.prerolled()
        #expect(run.send(.seek(2, accurate: true)) == [.seek(2, accurate: true)])
        #expect(run.send(.seek(4, accurate: false), .seek(5, accurate: true)) == [])
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.readDuration, .seek(5, accurate: true)])
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.readDuration])
        #expect(run.phase.seekTarget == nil && run.phase.pendingSeek == nil)
    }

    @Test func anAudioTrackChosenDuringASeekSwitchesOnceItIsDone() {
        var run = Run.prerolled()
        run.send(.durationKnown(10), .streamsKnown(audio: ["en", "fr"], currentAudio: 0, subtitles: [], currentSubtitle: nil))
        #expect(run.phase.audioTrack == 0)
        run.send(.seek(5, accurate: true))
        #expect(run.send(.audioTrackChosen(1)) == [], "switched streams during a flushing seek")
        #expect(run.phase.audioTrack == 1, "the menu shows the choice at once")
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.switchAudio(1)])
        #expect(run.send(.audioTrackChosen(1)) == [], "the same track again")
        #expect(run.send(.audioTrackChosen(7)) == [], "a track the file does not have")
    }

    @Test func aSubtitleChosenWhilePausedRedrawsTheFrameAndWhilePlayingDoesNot() {
        let tracks = [SubtitleTrack(name: "English", language: "en", file: nil),
                      SubtitleTrack(name: "French", language: "fr", file: nil)]
        var run = Run.prerolled()
        run.send(.streamsKnown(audio: [], currentAudio: 0, subtitles: tracks, currentSubtitle: 0))
        #expect(run.send(.subtitleChosen(1)) == [.showSubtitle(1), .redrawPausedFrame])
        #expect(run.phase.subtitleTrack == 1)
        run.send(.play, .reached(.playing))
        #expect(run.send(.subtitleChosen(nil)) == [.showSubtitle(nil)])
        #expect(run.send(.subtitleChosen(5)) == [], "a track the file does not have")
    }

    @Test func aSubtitleChosenBeforeTheFirstFrameIsShownWhenTheTracksAreKnown() {
        var run = Run()
        run.send(.fileOpened(subtitleFile: nil), .pipelineBuilt(rate: 1, resume: nil, playing: false))
        run.send(.subtitleChosen(nil))
        #expect(run.phase.wantedSubtitle == .off)
        run.send(.reached(.paused), .asyncDone(feedFailure: nil))
        let tracks = [SubtitleTrack(name: "English", language: "en", file: nil)]
        #expect(run.send(.streamsKnown(audio: [], currentAudio: 0, subtitles: tracks, currentSubtitle: 0)) == [.showSubtitle(nil)])
        #expect(run.phase.subtitleTrack == nil && run.phase.wantedSubtitle == nil)
    }

    @Test func aSubtitleFileBesideTheVideoIsShownAndOneWithoutTextIsAProblem() {
        var run = Run()
        run.send(.fileOpened(subtitleFile: "/v/clip.srt"), .pipelineBuilt(rate: 1, resume: nil, playing: false),
                 .reached(.paused), .asyncDone(feedFailure: nil))
        let tracks = [SubtitleTrack(name: "English", language: "en", file: nil),
                      SubtitleTrack(name: "clip.srt", language: nil, file: "/v/clip.srt")]
        #expect(run.send(.streamsKnown(audio: [], currentAudio: 0, subtitles: tracks, currentSubtitle: 0)) == [.showSubtitle(1)])
        #expect(run.phase.subtitleTrack == 1 && run.phase.subtitleProblem == nil)

        var unreadable = Run()
        unreadable.send(.fileOpened(subtitleFile: "/v/clip.srt"), .pipelineBuilt(rate: 1, resume: nil, playing: false),
                        .reached(.paused), .asyncDone(feedFailure: nil))
        unreadable.send(.streamsKnown(audio: [], currentAudio: 0, subtitles: [], currentSubtitle: nil))
        #expect(unreadable.phase.subtitleProblem == .notSubtitles(path: "/v/clip.srt"))
    }

    @Test func addingASubtitleFileRebuildsThePipelineWhereTheVideoIsAndPlaysOn() {
        var run = Run.prerolled()
        run.send(.play, .reached(.playing))
        #expect(run.send(.subtitleFileGiven("/v/missing.srt", readable: false)) == [])
        #expect(run.phase.subtitleProblem == .fileNotFound(path: "/v/missing.srt"))
        #expect(run.send(.subtitleFileGiven("/v/clip.srt", readable: true)) == [.rebuild])
        #expect(run.phase.subtitleProblem == nil && run.phase.wantedSubtitle == .external)
        // The player builds it again at 12 s, playing: loading until it plays from there.
        #expect(run.send(.pipelineBuilt(rate: 1, resume: 12, playing: true)) == [.request(.paused)])
        #expect(run.phase.shown == .loading && run.phase.subtitleFile == "/v/clip.srt")
        run.send(.reached(.paused))
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.readStreams, .seek(12, accurate: true)])
        #expect(run.send(.asyncDone(feedFailure: nil)) == [.readDuration, .request(.playing)])
        run.send(.reached(.playing))
        #expect(run.phase.shown == .playing)
    }

    @Test func playAfterTheEndStartsAgainFromTheBeginning() {
        var run = Run.prerolled()
        run.send(.play, .reached(.playing), .endOfStream(feedFailure: nil))
        #expect(run.phase.shown == .ended)
        #expect(run.send(.play) == [.seek(0, accurate: true), .request(.playing)])
        #expect(run.phase.shown == .playing && !run.phase.ended)
    }

    @Test func anotherSpeedSeeksWhereTheVideoIsOrRidesOnTheSeekThatRuns() {
        var run = Run.prerolled()
        #expect(run.send(.rateChanged(position: 4)) == [.seek(4, accurate: true)])
        #expect(run.send(.rateChanged(position: 4)) == [])
        #expect(run.phase.pendingSeek == .init(seconds: 4, accurate: true), "the seek in flight carries the old speed")
        var fresh = Run()
        fresh.send(.fileOpened(subtitleFile: nil))
        #expect(fresh.send(.pipelineBuilt(rate: 1.5, resume: nil, playing: false)) == [.request(.paused)])
        #expect(fresh.phase.pendingSeek == .init(seconds: 0, accurate: true), "a new pipeline plays at speed 1 until a seek")
    }

    @Test func aRefusedSeekLetsWhatWaitedForItGoOn() {
        var run = Run.prerolled()
        run.send(.streamsKnown(audio: ["en", "fr"], currentAudio: 0, subtitles: [], currentSubtitle: nil))
        run.send(.seek(5, accurate: true), .audioTrackChosen(1))
        #expect(run.send(.seekRefused) == [.readDuration, .switchAudio(1)])
        #expect(!run.phase.isSeeking)
    }

    @Test func aFailureStopsThePipelineAndLaterMessagesChangeNothing() {
        var run = Run.prerolled()
        run.send(.seek(5, accurate: true))
        #expect(run.send(.failed(.notDownloaded)) == [.stop])
        #expect(run.phase.shown == .failed(.notDownloaded) && !run.phase.isSeeking)
        #expect(run.send(.asyncDone(feedFailure: nil), .reached(.playing), .play, .seek(1, accurate: true)) == [])
        #expect(run.phase.shown == .failed(.notDownloaded))
        // A stream that ended where the downloaded bytes did is that failure, not an end.
        var short = Run.prerolled()
        #expect(short.send(.endOfStream(feedFailure: .notDownloaded)) == [.stop])
        #expect(short.phase.shown == .failed(.notDownloaded))
    }

    @Test func closingForgetsTheFileAndAnotherFileStartsClean() {
        var run = Run.prerolled()
        run.send(.durationKnown(10), .streamsKnown(audio: ["en"], currentAudio: 0, subtitles: [], currentSubtitle: nil))
        run.send(.closed)
        #expect(run.phase == PlaybackPhase())
        run.send(.fileOpened(subtitleFile: nil), .pipelineBuilt(rate: 1, resume: nil, playing: false))
        #expect(run.phase.duration == nil && run.phase.audioTracks.isEmpty && run.phase.shown == .loading)
    }
}

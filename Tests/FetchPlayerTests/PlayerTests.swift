import Testing
import TestSupport
import CGStreamer
import ThreadKit
@testable import FetchPlayer

/// Player against short clips made with gst-launch; the tests drive the GLib main context.
@MainActor
@Suite(.serialized)
struct PlayerTests {
    enum Kind: String, CaseIterable, Sendable {
        case webm, mpeg4
        func path(seconds: Double = 2) throws -> String {
            switch self {
            case .webm: try Clips.webm(seconds: seconds)
            case .mpeg4: try Clips.mpeg4(seconds: seconds)
            }
        }
    }

    private func opened(_ path: String) -> Player {
        let player = Player(audio: .none)
        player.open(path: path)
        return player
    }

    @Test(arguments: Kind.allCases)
    func prerollReportsDurationAndFirstFrame(kind: Kind) throws {
        let player = opened(try kind.path())
        #expect(player.state == .loading)
        #expect(runMainLoop { player.state == .paused })
        let duration = try #require(player.duration)
        #expect(abs(duration - 2) < 0.2, "duration \(duration)")
        #expect(runMainLoop { player.currentFrame != nil })
        #expect(player.currentFrame?.width == 320)
        #expect(player.currentFrame?.height == 240)
        #expect(player.position.map { $0 < 0.1 } == true)
    }

    @Test func framesHaveTheClipsSizeStrideAndColours() throws {
        let player = opened(try Clips.webm())
        var seen: [VideoFrame] = []
        player.observeFrames { seen.append($0) }
        player.play()
        #expect(runMainLoop { seen.count >= 5 })
        let frame = try #require(seen.last)
        #expect(frame.width == 320 && frame.height == 240)
        #expect(frame.stride >= 320 * 4 && frame.stride % 4 == 0)
        frame.withUnsafeBytes { #expect($0.count == frame.stride * frame.height) }
        // SMPTE bars (100% in GStreamer's `smpte`; `smpte75` is the 75% set): top left is
        // white, the second bar yellow (no blue).
        let white = frame.pixel(x: 10, y: 10)
        for channel in [white.blue, white.green, white.red] {
            #expect(abs(Int(channel) - 255) < 16, "white bar \(white)")
        }
        #expect(white.alpha == 255)
        let yellow = frame.pixel(x: 320 / 7 + 20, y: 10)
        #expect(yellow.blue < 40 && yellow.green > 150 && yellow.red > 150, "yellow bar \(yellow)")
        #expect(player.framesDelivered >= seen.count)
    }

    /// Every frame observer hears the frames, until it is removed; none replaces another.
    @Test func everyFrameObserverHearsFramesUntilRemoved() throws {
        let player = opened(try Clips.webm())
        var first = 0, second = 0
        var firstObservation: ObserverToken? = player.frameObservation { _ in first += 1 }
        player.observeFrames { _ in second += 1 }
        player.play()
        #expect(runMainLoop { first >= 3 && second >= 3 })
        withExtendedLifetime(firstObservation) {}
        firstObservation = nil
        let firstWhenRemoved = first, secondWhenRemoved = second
        #expect(runMainLoop { second >= secondWhenRemoved + 3 })
        #expect(first == firstWhenRemoved, "a removed observer hears no more frames")
    }

    @Test func playReachesTheEnd() throws {
        let player = opened(try Clips.webm(seconds: 1))
        player.play()
        #expect(runMainLoop { player.state == .playing })
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
        let position = try #require(player.position)
        #expect(abs(position - (player.duration ?? 0)) < 0.1)
    }

    @Test func playAfterTheEndStartsAgain() throws {
        let player = opened(try Clips.webm(seconds: 1))
        player.play()
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
        let framesAtEnd = player.framesDelivered
        player.play()
        #expect(runMainLoop { player.state == .playing })
        #expect(runMainLoop { !player.isSeeking })
        #expect(player.position.map { $0 < 0.9 } == true, "position \(String(describing: player.position))")
        #expect(runMainLoop { player.framesDelivered > framesAtEnd + 3 })
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
    }

    @Test(arguments: Kind.allCases)
    func accurateSeekLandsNearItsTarget(kind: Kind) throws {
        let player = opened(try kind.path())
        #expect(runMainLoop { player.state == .paused })
        player.seek(to: 1.2, accurate: true)
        #expect(runMainLoop { !player.isSeeking })
        let position = try #require(player.position)
        #expect(abs(position - 1.2) < 0.5, "position \(position)")
        // The paused player shows the frame at the new position.
        #expect(runMainLoop { player.currentFrame?.timestamp.map { abs($0 - 1.2) < 0.5 } == true })
        #expect(player.state == .paused)
    }

    @Test func draggingSeeksSettleOnTheLastTarget() throws {
        let player = opened(try Clips.webm())
        #expect(runMainLoop { player.state == .paused })
        player.play()
        #expect(runMainLoop { player.state == .playing })
        for step in 1...10 { player.seek(to: Double(step) * 0.1, accurate: false) }
        player.seek(to: 1.5, accurate: true)
        #expect(player.position == 1.5)
        #expect(runMainLoop { !player.isSeeking })
        let position = try #require(player.position)
        #expect(position >= 1.4 && position < 2.05, "position \(position)")
        #expect(player.state == .playing || player.state == .ended)
    }

    @Test func seekBeforePrerollIsDoneAfterIt() throws {
        let player = opened(try Clips.webm())
        player.seek(to: 1.0, accurate: true)
        #expect(runMainLoop { player.state == .paused && !player.isSeeking })
        let position = try #require(player.position)
        #expect(abs(position - 1.0) < 0.5, "position \(position)")
    }

    @Test func pauseStopsFrames() throws {
        let player = opened(try Clips.webm(seconds: 4))
        player.play()
        #expect(runMainLoop { player.framesDelivered >= 5 })
        player.pause()
        #expect(runMainLoop { player.state == .paused })
        runMainLoop(for: .milliseconds(200)) // the frame already relayed, and a preroll frame
        let framesWhenPaused = player.framesDelivered
        let positionWhenPaused = player.position
        runMainLoop(for: .milliseconds(700))
        #expect(player.framesDelivered == framesWhenPaused)
        #expect(player.position == positionWhenPaused)
        player.play()
        #expect(runMainLoop { player.framesDelivered > framesWhenPaused + 3 })
    }

    @Test func missingFileIsFileNotFound() {
        let path = Clips.directory + "/no-such-video.webm"
        let player = opened(path)
        #expect(player.state == .failed(.fileNotFound(path: path)))
        if case .failed(let error) = player.state {
            #expect(error.message.contains("no-such-video.webm"))
        }
    }

    @Test(arguments: ["text", "noise"])
    func fileThatIsNotAVideoFails(kind: String) throws {
        let path = kind == "text" ? try Clips.textFile() : try Clips.noise()
        let player = opened(path)
        #expect(runMainLoop { if case .failed = player.state { true } else { false } })
        #expect(player.state == .failed(.notAVideo))
        if case .failed(let error) = player.state { #expect(!error.message.isEmpty) }
        #expect(player.position == nil)
        player.play() // ignored
        #expect(player.state == .failed(.notAVideo))
    }

    @Test func videoCutShortBeforeItsFirstFrameIsCorrupt() throws {
        let cut = try Clips.truncated(try Clips.webm(), keeping: 0.02)
        let player = opened(cut)
        #expect(runMainLoop { if case .failed = player.state { true } else { false } })
        guard case .failed(let error) = player.state else { return }
        // The detail is GStreamer's error, or the player's own when decodebin dropped that error
        // (see Pipeline.streamingStopped): either way the file is damaged.
        guard case .corrupt = error else {
            Issue.record("not .corrupt: \(error)")
            return
        }
        #expect(error.message.contains("damaged or incomplete"))
    }

    @Test func videoCutShortLaterPlaysWhatItHasAndEnds() throws {
        let cut = try Clips.truncated(try Clips.webm(), keeping: 0.5)
        let player = opened(cut)
        player.play()
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
        #expect(player.framesDelivered > 5)
    }

    @Test func observersHearOnlyRealChanges() throws {
        let player = Player(audio: .none)
        var changes: [Player.Change] = []
        var observation: ObserverToken? = player.observation { changes.append($0) }
        player.open(path: try Clips.webm(seconds: 1))
        player.play()
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
        let states = changes.compactMap { if case .state(let state) = $0 { state } else { nil } }
        #expect(states == [.loading, .playing, .ended], "\(states)")
        let durations = changes.compactMap { if case .duration(let seconds) = $0 { seconds } else { nil } }
        #expect(durations.count == 1, "\(durations)")

        changes.removeAll()
        player.volume = 0.5
        player.volume = 0.5
        player.volume = 3
        player.isMuted = true
        player.isMuted = true
        #expect(changes == [.volume(0.5, muted: false), .volume(1, muted: false), .volume(1, muted: true)])

        withExtendedLifetime(observation) {}
        observation = nil
        player.close()
        #expect(player.state == .idle)
        #expect(changes.count == 3)
    }

    @Test func closeStopsEverythingAndThePlayerGoesAway() throws {
        let path = try Clips.webm()
        weak var released: Player?
        do {
            let player = opened(path)
            released = player
            player.play()
            #expect(runMainLoop { player.framesDelivered >= 3 })
            player.close()
            #expect(player.state == .idle && player.duration == nil && player.currentFrame == nil)
            let frames = player.framesDelivered
            runMainLoop(for: .milliseconds(200))
            #expect(player.framesDelivered == frames)
            player.open(path: path) // reopening works, and is released with the player
            #expect(runMainLoop { player.state == .paused })
        }
        runMainLoop(for: .milliseconds(50))
        #expect(released == nil)
    }

    @Test func automaticAudioPlaysWithOrWithoutADevice() throws {
        let player = Player(audio: .automatic)
        player.open(path: try Clips.webm(seconds: 1))
        player.play()
        #expect(runMainLoop(timeout: .seconds(6)) { player.state == .ended })
    }

    /// Video seconds played per second of the pipeline's own running time, measured over at
    /// least `clock` seconds of it (no wall-clock: the ratio is the speed whatever the load).
    private func measuredSpeed(_ player: Player, over clock: Double) -> Double? {
        func sample() -> (clock: Double, position: Double)? {
            guard !player.isSeeking, player.state == .playing, let running = player.runningTime,
                  let position = player.position else { return nil }
            return (running, position)
        }
        // After a flushing seek the running time starts again from 0 once the pipeline plays
        // on; a start sampled just before that restart is replaced by the first one after it.
        var start: (clock: Double, position: Double)?
        var end: (clock: Double, position: Double)?
        guard runMainLoop(until: {
            guard let now = sample() else { return false }
            if start == nil || now.clock < start!.clock || now.position < start!.position { start = now }
            end = now
            return now.clock >= start!.clock + clock
        }), let start, let end else { return nil }
        return (end.position - start.position) / (end.clock - start.clock)
    }

    @Test func speedTwoPlaysTwiceTheVideoPerSecondAndHalfPlaysHalf() throws {
        let player = opened(try Clips.webm(seconds: 10)) // with sound
        player.play()
        #expect(runMainLoop { player.state == .playing })
        var rates: [Double] = []
        player.observe { if case .rate(let rate) = $0 { rates.append(rate) } }

        player.rate = 2
        let fast = try #require(measuredSpeed(player, over: 1.5))
        #expect(abs(fast - 2) < 0.25, "at 2x: \(fast) s of video per s")
        player.rate = 0.5
        let slow = try #require(measuredSpeed(player, over: 1.5))
        #expect(abs(slow - 0.5) < 0.1, "at 0.5x: \(slow) s of video per s")
        player.rate = 10
        #expect(player.rate == 2, "the speed keeps to 0.5...2")
        #expect(rates == [2, 0.5, 2])
    }

    /// The clip's tone is 440 Hz; at other speeds it must sound the same (scaletempo stretches
    /// the sound), not an octave up or down.
    @Test(arguments: [2.0, 0.5])
    func otherSpeedsKeepThePitch(speed: Double) throws {
        let player = opened(try Clips.webm(seconds: 10))
        #expect(runMainLoop { player.state == .paused })
        let tap = try #require(AudioTap(player))
        player.play()
        player.rate = speed
        var heard: (speed: Double, hertz: Double)?
        #expect(runMainLoop {
            heard = tap.heard(afterSeconds: 1)
            return heard.map { abs($0.speed - speed) < 0.01 } == true
        }, "no second of sound at \(speed)x")
        let hertz = try #require(heard?.hertz)
        #expect(abs(hertz - 440) / 440 < 0.03, "at \(speed)x the 440 Hz tone is heard at \(hertz) Hz")
    }

    @Test func theSpeedCarriesOverToTheNextFileAndSeeks() throws {
        let player = Player(audio: .none)
        player.rate = 2 // before any file: applied once the next one is ready
        player.open(path: try Clips.webm(seconds: 10, audio: false))
        player.play()
        let first = try #require(measuredSpeed(player, over: 1))
        #expect(abs(first - 2) < 0.25, "a new file at 2x: \(first)")
        player.seek(to: 2, accurate: true) // a seek keeps the speed
        let afterSeek = try #require(measuredSpeed(player, over: 1))
        #expect(abs(afterSeek - 2) < 0.25, "after a seek at 2x: \(afterSeek)")
    }

    @Test func aClipWithTwoAudioTracksListsThemAndSwitches() throws {
        let player = opened(try Clips.twoAudioTracks())
        var changes = 0
        player.observe { if case .audioTracks = $0 { changes += 1 } }
        #expect(runMainLoop { player.state == .paused })
        #expect(player.audioTracks.count == 2, "\(player.audioTracks)")
        #expect(Set(player.audioTracks.compactMap { $0 }) == ["en", "fr"], "\(player.audioTracks)")
        #expect(player.audioTrack == 0)
        player.play()
        #expect(runMainLoop { player.state == .playing })
        player.selectAudioTrack(1)
        #expect(player.audioTrack == 1)
        // playbin itself plays the other stream now, and playback goes on.
        let pipeline = try #require(player.pipeline)
        #expect(fetchplay_object_get_int(pipeline.playbin, "current-audio") == 1)
        let frames = player.framesDelivered
        #expect(runMainLoop { player.framesDelivered > frames + 10 && player.state == .playing })
        player.selectAudioTrack(5) // no such track: nothing changes
        #expect(player.audioTrack == 1 && changes == 2)
    }

    /// A track chosen while a seek runs shows as chosen at once, and playbin switches to it only
    /// once the seek is done (switching streams during a flushing seek can deadlock GStreamer).
    @Test func aTrackChosenDuringASeekIsSwitchedToWhenTheSeekEnds() throws {
        let player = opened(try Clips.twoAudioTracks(seconds: 6))
        #expect(runMainLoop { player.state == .paused && player.audioTracks.count == 2 })
        let pipeline = try #require(player.pipeline)
        player.seek(to: 3, accurate: true)
        #expect(player.isSeeking)
        player.selectAudioTrack(1)
        #expect(player.audioTrack == 1)
        #expect(fetchplay_object_get_int(pipeline.playbin, "current-audio") == 0, "switched during the seek")
        #expect(runMainLoop { !player.isSeeking })
        #expect(fetchplay_object_get_int(pipeline.playbin, "current-audio") == 1)
        player.play()
        #expect(runMainLoop { player.state == .playing })
        #expect(player.audioTrack == 1)
    }
}

import CGLib
import CGStreamer
import Testing
import TestSupport
@testable import FetchPlayer

/// Subtitles drawn into the frames the player hands out: the clips are black, so bright pixels
/// in the bottom third are the subtitle's letters (textoverlay sizes them to the video's width:
/// about 14 pixels high in these 640x360 clips).
@MainActor
@Suite(.serialized)
struct SubtitleTests {
    /// Pixels of the bottom third that are near white.
    static func textPixels(_ frame: VideoFrame) -> Int {
        var count = 0
        for y in stride(from: frame.height * 2 / 3, to: frame.height, by: 1) {
            for x in stride(from: 0, to: frame.width, by: 1) {
                let pixel = frame.pixel(x: x, y: y)
                if pixel.red > 180 && pixel.green > 180 && pixel.blue > 180 { count += 1 }
            }
        }
        return count
    }

    /// Whether the frames delivered from now on soon show text (`shown`) or none, and the
    /// next `confirming` frames after that agree.
    private func framesShowText(_ player: Player, _ shown: Bool, confirming: Int = 5) -> Bool {
        var agreeing = 0
        var seen = player.framesDelivered
        return runMainLoop {
            guard player.framesDelivered > seen, let frame = player.currentFrame else { return false }
            seen = player.framesDelivered
            if (Self.textPixels(frame) > 40) == shown { agreeing += 1 } else { agreeing = 0 }
            return agreeing > confirming
        }
    }

    private func textNow(_ player: Player) -> Bool? {
        player.currentFrame.map { Self.textPixels($0) > 40 }
    }

    @Test func anEmbeddedTrackIsListedShownAndTurnedOffAndOn() throws {
        let player = Player(audio: .none)
        var changes = 0
        player.observe { if case .subtitles = $0 { changes += 1 } }
        player.open(path: try Clips.embeddedSubtitles(seconds: 6))
        #expect(runMainLoop { player.state == .paused })
        #expect(player.subtitleTracks == [SubtitleTrack(name: "Signs (German)", language: "de", file: nil)],
                "\(player.subtitleTracks)")
        #expect(player.subtitleTrack == 0)
        #expect(runMainLoop { player.currentFrame != nil })
        #expect(textNow(player) == true, "the first frame shows the subtitle")

        player.play()
        #expect(framesShowText(player, true))
        player.selectSubtitleTrack(nil)
        #expect(player.subtitleTrack == nil)
        #expect(framesShowText(player, false), "the text goes with the toggle")
        player.selectSubtitleTrack(0)
        #expect(framesShowText(player, true), "and comes back")
        #expect(player.subtitleTrack == 0 && changes == 3, "\(changes) changes")
        player.selectSubtitleTrack(3) // no such track: nothing changes
        #expect(player.subtitleTrack == 0 && changes == 3)
    }

    /// Off shows at once on a paused video. (On shows from the next played frame: after a
    /// flushing seek in PAUSED, playbin's text overlay gets its text stamped late and draws the
    /// paused frame without it.)
    @Test func aPausedVideoLosesItsTextAtOnce() throws {
        let player = Player(audio: .none)
        player.open(path: try Clips.embeddedSubtitles(seconds: 6))
        #expect(runMainLoop { player.state == .paused && player.currentFrame != nil })
        #expect(textNow(player) == true)
        let frames = player.framesDelivered
        player.selectSubtitleTrack(nil)
        #expect(runMainLoop { player.framesDelivered > frames && !player.isSeeking })
        #expect(runMainLoop { textNow(player) == false }, "the paused frame is drawn again without the text")
        #expect(player.state == .paused)
        player.selectSubtitleTrack(0)
        player.play()
        #expect(framesShowText(player, true))
    }

    /// Off chosen while a seek runs shows as chosen at once; playbin's text flag changes only
    /// once the seek is done (switching streams during a flushing seek can deadlock GStreamer),
    /// and the paused frame is then drawn again without the text.
    @Test func aTrackChosenDuringASeekIsSwitchedWhenTheSeekEnds() throws {
        let player = Player(audio: .none)
        player.open(path: try Clips.embeddedSubtitles(seconds: 6))
        #expect(runMainLoop { player.state == .paused && player.currentFrame != nil })
        let pipeline = try #require(player.pipeline)
        let textOn = { fetchplay_object_get_flags(pipeline.playbin, "flags") & Player.textFlag != 0 }
        player.seek(to: 2, accurate: true)
        #expect(player.isSeeking)
        player.selectSubtitleTrack(nil)
        #expect(player.subtitleTrack == nil)
        #expect(textOn(), "switched during the seek")
        #expect(runMainLoop { !textOn() }, "not switched once the seek was done")
        #expect(runMainLoop { !player.isSeeking && textNow(player) == false }, "the paused frame still shows the text")
        #expect(player.state == .paused)
    }

    @Test func aSubRipFileBesideTheVideoIsPickedUpAndShown() throws {
        let path = try Clips.blackVideo(withSubtitles: true)
        let player = Player(audio: .none)
        player.open(path: path)
        #expect(runMainLoop { player.state == .paused && player.currentFrame != nil })
        let beside = String(path.dropLast("webm".count)) + "srt"
        #expect(player.subtitleTracks == [SubtitleTrack(name: "video.srt", language: nil, file: beside)],
                "\(player.subtitleTracks)")
        #expect(player.subtitleTrack == 0)
        #expect(textNow(player) == true)
        player.play()
        #expect(framesShowText(player, true))
        player.selectSubtitleTrack(nil)
        #expect(framesShowText(player, false))
    }

    @Test func aSubtitleFileAddedLaterShowsWhereTheVideoIs() throws {
        let player = Player(audio: .none)
        player.open(path: try Clips.blackVideo(seconds: 6, withSubtitles: false))
        #expect(runMainLoop { player.state == .paused && player.currentFrame != nil })
        #expect(player.subtitleTracks.isEmpty && player.subtitleTrack == nil)
        #expect(textNow(player) == false)
        player.play()
        #expect(runMainLoop { (player.position ?? 0) > 1.5 })
        let file = try Clips.subRip("ADDED", named: "added.srt")
        player.addSubtitle(file: file)
        #expect(runMainLoop { player.state == .playing && !player.isSeeking })
        #expect(player.subtitleTracks == [SubtitleTrack(name: "added.srt", language: nil, file: file)])
        #expect(player.subtitleTrack == 0)
        #expect((player.position ?? 0) > 1.4, "it goes on from where it was: \(String(describing: player.position))")
        #expect(framesShowText(player, true))
        #expect(player.subtitleProblem == nil)
    }

    @Test func aFileThatHoldsNoSubtitlesIsSaidAndTheVideoPlaysOn() throws {
        let player = Player(audio: .none)
        player.open(path: try Clips.blackVideo(seconds: 6, withSubtitles: false))
        #expect(runMainLoop { player.state == .paused })
        let noise = try Clips.noise()
        player.addSubtitle(file: noise)
        #expect(runMainLoop { player.state == .paused && player.subtitleProblem != nil })
        #expect(player.subtitleProblem == .notSubtitles(path: noise))
        #expect(player.subtitleTracks.isEmpty)
        player.play()
        #expect(runMainLoop { player.state == .playing })

        player.addSubtitle(file: Clips.directory + "/no-such.srt")
        #expect(player.subtitleProblem == .fileNotFound(path: Clips.directory + "/no-such.srt"))
        #expect(player.state == .playing)
    }

    @Test func tracksAreNamedForAMenu() {
        #expect(SubtitleTrack.name(title: nil, language: "en", number: 1) == "English")
        #expect(SubtitleTrack.name(title: "Commentary", language: "fr", number: 1) == "Commentary (French)")
        #expect(SubtitleTrack.name(title: "English", language: "en", number: 1) == "English")
        #expect(SubtitleTrack.name(title: nil, language: "und", number: 2) == "Subtitles 2")
        #expect(SubtitleTrack.name(title: "", language: nil, number: 3) == "Subtitles 3")
        let twins = SubtitleTrack.distinguished([SubtitleTrack(name: "English", language: "en", file: nil),
                                                 SubtitleTrack(name: "German", language: "de", file: nil),
                                                 SubtitleTrack(name: "English", language: "en", file: nil)])
        #expect(twins.map(\.name) == ["English 1", "German", "English 2"])
    }

    @Test func aSubtitleFileBesideIsFoundByTheVideosName() throws {
        let path = try Clips.blackVideo(withSubtitles: true)
        #expect(SubtitleTrack.file(beside: path) == String(path.dropLast("webm".count)) + "srt")
        #expect(SubtitleTrack.file(beside: try Clips.blackVideo(withSubtitles: false)) == nil)
    }
}

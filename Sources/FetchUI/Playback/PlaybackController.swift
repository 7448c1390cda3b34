import CGtk
import FetchCore
import FetchPlayer
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// Plays videos in the window: the `Player` (made on first use) wired to the `VideoView`, the
/// playback actions, and where each video was left.
///
/// Player changes arrive through `observe` and set the view; the position is polled four times a
/// second while the view is mapped (the timeout is removed on unmap). Actions are enabled only
/// while the video page shows, so their plain keys never steal typing elsewhere.
@MainActor
public final class PlaybackController {
    var connections: [SignalConnection] = []
    /// Its observers of the view, for as long as it lives.
    private var observations: [ObserverToken] = []
    /// Seconds a Left/Right key press moves.
    static let seekStep = 5.0
    /// Volume change of an Up/Down key press (linear, 0…1).
    static let volumeStep = 0.1
    /// Milliseconds between position updates of the seek bar.
    static let tickInterval: UInt32 = 250
    /// Position ticks between two saves of the position while playing (about 5 s).
    static let ticksPerSave = 20
    /// Seconds: a video whose last picture comes this long before its stated length ended early.
    static let earlyEndMargin = 1.0

    public let view: VideoView
    /// The player, once a video was opened.
    public private(set) var player: Player?
    /// Where positions are remembered; nil without a cache folder.
    public let positions: PlaybackPositions?
    /// The position the current video resumed from, if it did.
    public internal(set) var resumedFrom: Double?
    /// The download being watched while it arrives; nil for a finished file.
    private(set) var stream: DownloadBoard?
    /// The link of the video `stream` downloads, which keeps its position until it is saved.
    private(set) var streamLink: String?
    /// Where the video stopped, in seconds, when it ended before its stated length (a truncated
    /// download or a damaged file); nil otherwise.
    public private(set) var endedEarlyAt: Double?
    /// The position at the last tick while playing (for files without pictures).
    var lastPlayingPosition: Double?

    private let audio: AudioOutput
    let window: UnsafeMutablePointer<GtkWidget>
    private var owned: [OwnedWidget] = []
    let observers = Observers<Void>()
    var tickSource: UInt32?
    var ticksSinceSave = 0
    private var pageVisible = false
    /// The screen stays on while a video plays.
    let idleInhibitor: SessionInhibitor
    /// MPRIS on the session bus; nil without one.
    private let mediaPlayer2: MediaPlayer2?
    /// The audio or subtitle drop-down is being refilled: its selection changes are not the person's.
    private var fillingMenus = false
    /// What was chosen for the video open now (speed, audio, subtitles), remembered in its record.
    var choices = PlaybackChoices()
    /// The remembered audio and subtitle choices not applied yet: they wait for the file's tracks.
    private var pendingChoices = PlaybackChoices()
    /// The title of the video open now (MPRIS shows it).
    private(set) var title = ""
    private let events = Observers<Event>()

    /// What a playback measurement follows (bench/playback.sh).
    public enum Event: Sendable {
        /// A file is being opened.
        case opened
        /// A frame was handed to the video view.
        case frameShown
        /// The end of the stream was reached.
        case ended
    }

    /// Calls `body` on each playback event, for the controller's lifetime.
    public func observeEvents(_ body: @escaping @MainActor (Event) -> Void) { events.add(body) }

    /// - Parameters:
    ///   - window: the toplevel, for fullscreen.
    ///   - view: the video page's view.
    init(window: UnsafeMutablePointer<GtkWidget>, view: VideoView, positions: PlaybackPositions?, audio: AudioOutput) {
        self.window = window
        self.view = view
        self.positions = positions
        self.audio = audio
        idleInhibitor = SessionInhibitor(window: window, flags: GTK_APPLICATION_INHIBIT_IDLE, reason: tr("Playing a video"))
        mediaPlayer2 = gtk_window_get_application(window.as(GtkWindow.self)).flatMap(MediaPlayer2.service(for:))
        view.controls.seekBar.connectChangeValue { [weak self] value in self?.seekBarChanged(value) }.store(in: &connections)
        view.controls.seekBar.connect("notify::css-classes") { [weak self] (_: UnsafeMutableRawPointer?) in
            self?.seekBarDragChanged()
        }.store(in: &connections)
        view.controls.speed.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self, let rate = self.view.controls.selectedRate else { return }
            self.ensurePlayer().rate = rate
            self.choose { $0.rate = rate == 1 ? nil : rate }
        }.store(in: &connections)
        view.controls.subtitles.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self, !self.fillingMenus, let choice = self.view.controls.selectedSubtitle else { return }
            self.player?.selectSubtitleTrack(choice)
            self.choose { $0.subtitles = choice.map { .track($0) } ?? .off }
        }.store(in: &connections)
        view.controls.audio.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self, !self.fillingMenus, let index = self.view.controls.selectedAudioTrack else { return }
            self.player?.selectAudioTrack(index)
            self.choose { $0.audioTrack = index }
        }.store(in: &connections)
        view.controls.volume.connect("value-changed") { [weak self] () in
            guard let self else { return }
            self.ensurePlayer().volume = gtk_range_get_value(self.view.controls.volume.as(GtkRange.self))
        }.store(in: &connections)
        view.widget.connect("map") { [weak self] in self?.startTicking() }.store(in: &connections)
        view.widget.connect("unmap") { [weak self] in self?.stopTicking() }.store(in: &connections)
        window.connect("notify::fullscreened") { [weak self] (_: UnsafeMutableRawPointer?) in self?.updateActions() }.store(in: &connections)
        // The window goes (gtk_window_destroy unrealizes it; "destroy" waits for the last reference).
        window.connect("unrealize") { [weak self] in self?.close() }.store(in: &connections)
        view.framesShownObservers.observe { [weak self] in self?.events.notify(.frameShown) }.store(in: &observations)
        updateActions()
        owned = OwnedWidget.keep(window)
    }

    // MARK: Opening

    /// Plays `path` from where it was left (offering Start Over), or from the start.
    public func open(path: String, title: String) {
        let player = prepare(title: title, stream: nil)
        player.open(path: path)
        choices = positions?.choices(for: path) ?? PlaybackChoices()
        pendingChoices = choices
        if let rate = choices.rate { player.rate = rate }
        finishOpening(player, title: title, from: positions?.position(for: path))
    }

    /// Plays a video while it downloads, through the engine's board: from the start, as far as
    /// its bytes (or an HLS or DASH presentation's segments) are on disk; the seek bar shows the
    /// parts downloaded, a wait shows the spinner, and a seek ahead makes the download fetch
    /// that part next.
    public func open(stream board: DownloadBoard, link: String, title: String) {
        let player = prepare(title: title, stream: board)
        streamLink = link
        if board.stream != nil {
            do {
                player.open(watching: try WatchServer(board: board), title: title)
            } catch {
                // No loopback socket: the video plays once it is saved.
                self.stream = nil
                return view.showBanner(error.message)
            }
        } else {
            player.open(source: DownloadStream(board: board), title: title)
        }
        // Where it was left, after a quit too: a presentation's pieces there come first.
        finishOpening(player, title: title, from: positions?.position(link: link))
    }

    /// What both ways of opening do first: the last video's position saved, the view cleared.
    private func prepare(title: String, stream: DownloadBoard?) -> Player {
        rememberPosition()
        let player = ensurePlayer()
        view.clear(title: title)
        resumedFrom = nil
        endedEarlyAt = nil
        lastPlayingPosition = nil
        self.stream = stream
        streamLink = nil
        choices = PlaybackChoices()
        pendingChoices = PlaybackChoices()
        view.controls.showDownloaded(nil)
        events.notify(.opened)
        limitFrameSize()
        return player
    }

    /// What both ways of opening do last: from `resume` (with its banner) when it was left, play.
    private func finishOpening(_ player: Player, title: String, from resume: Double?) {
        if let resume {
            resumedFrom = resume
            player.seek(to: resume, accurate: true)
            view.showBanner(String(format: tr("Resumed from %1$@"), PlaybackTime.string(resume)))
        }
        player.play()
        view.revealBars()
        update()
        self.title = title
        mediaPlayer2?.opened(by: self)
    }

    /// Brings the window to the front (MPRIS Raise).
    func raiseWindow() { gtk_window_present(window.as(GtkWindow.self)) }

    /// Quits the application (MPRIS Quit), the way its own Quit action does.
    func quitApplication() {
        if let app = gtk_window_get_application(window.as(GtkWindow.self)) {
            g_action_group_activate_action(app.opaque, FetchplayAction.quit.name, nil)
        }
    }

    /// The window shows the video page (`true`) or another one.
    func pageChanged(visible: Bool) {
        guard visible != pageVisible else { return }
        pageVisible = visible
        if !visible {
            if player?.state == .playing { player?.pause() }
            rememberPosition()
            leaveFullscreen()
            view.stopTimers()
        }
        updateActions()
    }

    /// Stops playback for good and saves the position (window closing).
    func close() {
        rememberPosition()
        stopTicking()
        view.stopTimers()
        player?.close()
        idleInhibitor.update(active: false)
        // The position is written on the positions' worker, which the shutdown joins.
    }

    // MARK: Player → view

    private func ensurePlayer() -> Player {
        if let player { return player }
        let player = Player(audio: audio)
        player.observeFrames { [weak self] frame in self?.view.show(frame) }
        player.observe { [weak self] change in self?.playerChanged(change) }
        self.player = player
        return player
    }

    private func playerChanged(_ change: Player.Change) {
        mediaPlayer2?.playerChanged(change, in: self)
        switch change {
        case .state(let state):
            if state == .paused { rememberPosition() }
            endedEarlyAt = state == .ended ? earlyEnd() : nil
            if state == .ended {
                if stream == nil, let path = player?.path { positions?.forget(path) }
                events.notify(.ended)
            }
            update()
        case .duration:
            tick()
        case .volume(let level, let muted):
            view.controls.showVolume(level, muted: muted)
        case .rate(let rate):
            view.controls.showRate(rate)
        case .audioTracks:
            let tracks = player?.audioTracks ?? []
            if let wanted = pendingChoices.audioTrack, tracks.indices.contains(wanted) {
                pendingChoices.audioTrack = nil
                player?.selectAudioTrack(wanted)
            }
            fillingMenus = true
            view.controls.showAudioTracks(tracks.enumerated().map { Self.trackName($1, number: $0 + 1) },
                                          selected: player?.audioTrack)
            fillingMenus = false
        case .subtitles:
            if let wanted = pendingChoices.subtitles, let player {
                switch wanted {
                case .off:
                    pendingChoices.subtitles = nil
                    player.selectSubtitleTrack(nil)
                case .track(let index) where player.subtitleTracks.indices.contains(index):
                    pendingChoices.subtitles = nil
                    player.selectSubtitleTrack(index)
                default:
                    break  // the track is not known yet: wait for the next change
                }
            }
            fillingMenus = true
            view.controls.showSubtitles(player?.subtitleTracks.map(\.name) ?? [], selected: player?.subtitleTrack)
            fillingMenus = false
            if let problem = player?.subtitleProblem { view.showBanner(problem.message) }
        }
    }

    private func update() {
        let state = player?.state ?? .idle
        view.controls.showPlaying(state == .playing)
        view.showLoading(state == .loading)
        view.autoHide = state == .playing
        idleInhibitor.update(active: state == .playing)
        if case .failed(let error) = state {
            view.showError(error.message)
            view.showBanner(nil)
        } else if state == .ended, let stop = endedEarlyAt {
            // Say so rather than let the seek bar jump to a length the file does not have.
            let at = PlaybackTime.string(stop)
            view.showError(player?.duration.map {
                String(format: tr("The video ends early, at %1$@ of %2$@: the file is incomplete or damaged."),
                       at, PlaybackTime.string($0))
            } ?? String(format: tr("The video ends early, at %1$@: the file is incomplete or damaged."), at))
        } else {
            view.showError(nil)
        }
        updateActions()
        tick()
    }

}

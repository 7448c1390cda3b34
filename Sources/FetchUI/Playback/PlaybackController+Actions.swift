import CGtk
import FetchCore
import FetchPlayer
import FetchViewModel
import GLibSupport
import Localization

/// The playback actions (the video page's keys and buttons, through their `ActionHandler`) and
/// the choices they remember.
extension PlaybackController {
    /// Space on the video: plays or pauses.
    func togglePlayback() {
        withPlayer { $0.state == .playing ? $0.pause() : $0.play() }
    }

    /// The arrows: `seconds` forward (or back, when negative).
    func seek(by seconds: Double) {
        withPlayer { player in
            if let position = player.position { player.seek(to: position + seconds, accurate: true) }
            view.revealBars()
        }
    }

    /// Up and Down: the volume by `step` (louder unmutes).
    func changeVolume(by step: Double) {
        withPlayer { player in
            player.volume += step
            if step > 0 { player.isMuted = false }
            view.revealBars()
        }
    }

    func toggleMute() {
        withPlayer { $0.isMuted.toggle() }
    }

    /// `[` and `]`: the next speed of the controls' list, remembered for the video.
    func changeRate(faster: Bool) {
        withPlayer { player in
            player.rate = Self.rate(after: player.rate, faster: faster)
            let rate = player.rate
            choose { $0.rate = rate == 1 ? nil : rate }
            view.revealBars()
        }
    }

    /// Plays from the start, and forgets the position remembered.
    func startOver() {
        withPlayer { player in
            player.seek(to: 0, accurate: true)
            if stream == nil, let path = player.path { positions?.forget(path) }
            resumedFrom = nil
            view.showBanner(nil)
        }
    }

    /// Runs `body` on the open player (nothing without one), then brings the controls up to date.
    private func withPlayer(_ body: (Player) -> Void) {
        guard let player else { return }
        body(player)
        tick()
    }

    /// Changes what is remembered for the video open now (a file of the library; a video still
    /// downloading has no record to keep it in yet).
    func choose(_ change: (inout PlaybackChoices) -> Void) {
        change(&choices)
        guard stream == nil, let path = player?.path else { return }
        positions?.remember(choices, for: path)
    }

    /// A subtitle file dropped on the playing video: it joins the video's tracks and shows.
    func addSubtitle(file path: String) {
        player?.addSubtitle(file: path)
    }

    /// "Track 2 (fr)" with the file's language code, "Track 2" without one.
    static func trackName(_ language: String?, number: Int) -> String {
        guard let language else { return String(format: tr("Track %1$d"), number) }
        return String(format: tr("Track %1$d (%2$@)"), number, language)
    }

    /// The next speed of the controls' list up or down from `rate` (it stays at the ends).
    static func rate(after rate: Double, faster: Bool) -> Double {
        let rates = VideoControls.rates
        let next = faster ? rates.first { $0 > rate + 0.01 } : rates.last { $0 < rate - 0.01 }
        return next ?? (faster ? rates.last! : rates.first!)
    }

    public var isFullscreen: Bool { gtk_window_is_fullscreen(window.as(GtkWindow.self)) != 0 }

    /// F, F11 and Escape (with a video open or not).
    func setFullscreen(_ on: Bool) {
        if on { gtk_window_fullscreen(window.as(GtkWindow.self)) } else { leaveFullscreen() }
        tick()
    }

    func leaveFullscreen() {
        if isFullscreen { gtk_window_unfullscreen(window.as(GtkWindow.self)) }
    }

    /// Calls `body` when what the actions depend on changed (the player's state, the page,
    /// fullscreen).
    func observe(_ body: @escaping @MainActor () -> Void) { observers.add(body) }

    /// A video is open and can play, seek and pause.
    var isReady: Bool { player?.state.isReady ?? false }

    func updateActions() {
        view.controls.showFullscreen(isFullscreen)
        view.setFullscreen(isFullscreen)
        observers.notify(())
    }
}

import CGtk
import FetchCore
import FetchPlayer
import FetchViewModel
import GLibSupport
import Localization

/// The playback actions (the video page's keys and buttons), the choices they remember, and
/// when each can run.
extension PlaybackController {
    func perform(_ action: FetchplayAction) {
        guard let player else {
            if action == .fullscreen || action == .leaveFullscreen { toggleFullscreen(action == .fullscreen) }
            return
        }
        switch action {
        case .togglePlayback:
            if player.state == .playing { player.pause() } else { player.play() }
        case .seekForward, .seekBackward:
            let step = action == .seekForward ? Self.seekStep : -Self.seekStep
            if let position = player.position { player.seek(to: position + step, accurate: true) }
            view.revealBars()
        case .volumeUp, .volumeDown:
            player.volume += action == .volumeUp ? Self.volumeStep : -Self.volumeStep
            if action == .volumeUp { player.isMuted = false }
            view.revealBars()
        case .mute:
            player.isMuted.toggle()
        case .fullscreen, .leaveFullscreen:
            toggleFullscreen(action == .fullscreen)
        case .slower, .faster:
            player.rate = Self.rate(after: player.rate, faster: action == .faster)
            let rate = player.rate
            choose { $0.rate = rate == 1 ? nil : rate }
            view.revealBars()
        case .startOver:
            player.seek(to: 0, accurate: true)
            if stream == nil, let path = player.path { positions?.forget(path) }
            resumedFrom = nil
            view.showBanner(nil)
        default:
            break
        }
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

    private func toggleFullscreen(_ on: Bool) {
        if on { gtk_window_fullscreen(window.as(GtkWindow.self)) } else { leaveFullscreen() }
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

import CGtk
import FetchPlayer
import FetchViewModel
import GLibSupport

/// The position: polled while the view is mapped, shown on the seek bar, remembered per video.
extension PlaybackController {
    func startTicking() {
        guard tickSource == nil else { return }
        tickSource = MainContext.every(milliseconds: Self.tickInterval) { [weak self] in
            guard let self else { return false }
            self.tick()
            self.ticksSinceSave += 1
            if self.ticksSinceSave >= Self.ticksPerSave, self.player?.state == .playing { self.rememberPosition() }
            return true
        }
    }

    func stopTicking() {
        if let tickSource { g_source_remove(tickSource) }
        tickSource = nil
    }

    func tick() {
        guard let player else { return }
        limitFrameSize()
        if player.state == .playing, !player.isSeeking, let position = player.position { lastPlayingPosition = position }
        view.controls.showTime(position: endedEarlyAt ?? player.position ?? 0, duration: player.duration)
        showStream(player)
    }

    /// A video still downloading: its downloaded parts under the seek bar, and the spinner while
    /// the player waits for bytes. Once the whole file is there it plays as any other.
    private func showStream(_ player: Player) {
        guard let stream else { return }
        if let presentation = stream.stream {
            let parts = presentation.fractions
            view.controls.showDownloaded(parts == [0...1] ? nil : parts)
        } else {
            let coverage = stream.coverage
            let complete = coverage.total.map { coverage.spans == [0..<$0] } ?? false
            view.controls.showDownloaded(complete ? nil : coverage.fractions)
        }
        view.showLoading(player.state == .loading || player.isBuffering)
    }

    /// Where playback really stopped, if that is well before the stated length: the newest
    /// frame's time (delivered, painted or not: a window that stopped painting still played
    /// it), else the last position seen while playing.
    func earlyEnd() -> Double? {
        guard let duration = player?.duration, duration > 0,
              let last = player?.currentFrame?.timestamp ?? lastPlayingPosition else { return nil }
        return duration - last > Self.earlyEndMargin ? last : nil
    }

    /// Frames no larger than the view shows them (fullscreen, resizes follow within a tick).
    func limitFrameSize() {
        let size = view.displaySize
        player?.limitFrameSize(width: size?.width, height: size?.height)
    }

    /// A click or drag on the seek bar: key-frame seeks while dragging (fast), exact otherwise.
    func seekBarChanged(_ value: Double) {
        player?.seek(to: value, accurate: !view.controls.isDragging)
        view.controls.showTime(position: value, duration: player?.duration)
    }

    /// The drag ended: one exact seek to where the slider was let go.
    func seekBarDragChanged() {
        guard !view.controls.isDragging, let player, player.state.isReady else { return }
        player.seek(to: gtk_range_get_value(view.controls.seekBar.as(GtkRange.self)), accurate: true)
    }

    func rememberPosition() {
        ticksSinceSave = 0
        guard let player, player.state.isReady, player.state != .ended, let position = player.position else { return }
        if stream != nil {
            // A video still downloading has no file of its own yet: its link keeps the position.
            if let streamLink { positions?.remember(position, duration: player.duration, link: streamLink) }
        } else if let path = player.path {
            positions?.remember(position, duration: player.duration, for: path)
        }
    }
}

import CGtk
import FetchPlayer
import Foundation
import GLibSupport

/// The window's side of playback: the video page and page changes.
extension MainWindow {
    /// Follows the stack's pages and the player.
    func installPlayback() {
        playback.observe { [weak self] in self?.updateActions() }
        ui.stack.connect("notify::visible-child-name") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self else { return }
            self.playback.pageChanged(visible: self.visiblePage == "video")
            self.updateLayout()
            self.refresh()
        }.store(in: &connections)
        installLinkDrops()
    }
}

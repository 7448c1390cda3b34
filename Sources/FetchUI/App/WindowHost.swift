import CGtk
import FetchCore

/// What the window's parts ask of the window: the one way the download page and the library
/// reach it, instead of a closure slot each. The window is the only one (`MainWindow`).
@MainActor
protocol WindowHost: AnyObject {
    /// Shows the video page with a finished video.
    func play(path: String, title: String)
    /// Shows the video page with a video still downloading: it plays what is on disk as it arrives.
    func watch(board: DownloadBoard, link: String, title: String)
    /// Plays the selected download now, or as soon as Play is offered for it.
    func playSelected()
    /// Brings the window's actions in line (before buttons change).
    func updateActions()
    /// The page on show: "download" or "video".
    var visiblePage: String { get }
    /// The window, for what opens over it.
    var window: UnsafeMutablePointer<GtkWindow> { get }
    /// Says why a command could not run, under the entry.
    func showMessage(_ sentence: String)
}

extension MainWindow: WindowHost {
    var window: UnsafeMutablePointer<GtkWindow> { widget.as(GtkWindow.self) }

    func playSelected() { downloadPage.playWhenReady(store?.url) }

    func showMessage(_ sentence: String) { downloadPage.showURLMessage(sentence) }
}

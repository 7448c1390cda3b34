import CGtk
import FetchCore
import GLibSupport

/// The window's side of notifications: what their buttons and a click on them do
/// (`app.play-link`, `app.show-link`, which `FetchplayApplication` routes here).
extension MainWindow {
    func installNotifications() {
        guard let session else { return }
        notifier = DownloadNotifier(window: widget, session: session)
    }

    /// A click on a notification: the window comes back showing that download (its ring, its
    /// row, its buttons), on the download page.
    public func showLink(_ url: String) {
        showDownloadPage()
        showDownloadColumn()
        session?.select(url: url)
        refresh()
        present()
    }

    /// Play on a notification (or `app.play-link` over D-Bus): plays the video when it is
    /// complete; else shows the download, ready for what it needs. In a window just started for
    /// it (D-Bus activation) the video's record is read in the background: it plays once read.
    public func playLink(_ url: String) {
        showLink(url)
        downloadPage.playWhenReady(session?.url)
    }
}

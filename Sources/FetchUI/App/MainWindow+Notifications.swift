import CGtk
import FetchCore
import Foundation
import GLibSupport

/// The window's side of notifications: what their buttons and a click on them do
/// (`app.play-link`, `app.show-link`, which `FetchplayApplication` routes here).
extension MainWindow {
    func installNotifications() {
        guard let store else { return }
        notifier = DownloadNotifier(window: widget, store: store)
    }

    /// A click on a notification: the window comes back showing that download (its ring, its
    /// row, its buttons), on the download page.
    public func showLink(_ url: String) {
        showDownloadPage()
        showDownloadColumn()
        store?.select(url: url)
        refresh()
        present()
    }

    /// Play on a notification (or `app.play-link` over D-Bus): plays the video when it is
    /// complete; else shows the download, ready for what it needs. In a window just started for
    /// it (D-Bus activation) the video's record is read in the background: it plays once read.
    public func playLink(_ url: String) {
        showLink(url)
        downloadPage.playWhenReady(store?.url)
    }

    /// A link the browser extension handed over (`app.browser-download`, from the native host):
    /// checked again here, as anything on the session bus may call the action, then downloaded
    /// with the page's context like a pasted link, and shown.
    public func downloadFromBrowser(_ message: String) {
        showDownloadPage()
        showDownloadColumn()
        present()
        guard let store else { return }
        do throws(RequestContextError) {
            guard case .download(let url, let context) = try BrowserMessage.parse(Data(message.utf8)) else { return }
            do throws(DownloadError) {
                try store.start(url, context: context)
            } catch {
                downloadPage.showURLMessage(error.message)
            }
        } catch {
            downloadPage.showURLMessage(error.message)
        }
        refresh()
    }
}

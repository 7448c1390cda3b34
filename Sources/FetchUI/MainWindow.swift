import CGtk
import FetchCore
import Foundation
import GLibSupport

/// The window: a URL entry, the ring, Start / Pause / Continue / Play, and a place for the video.
///
/// Thin by design: it turns actions into `DownloadSession` calls and the session's state into
/// widget properties (`refresh()`), through the pure `ControlState` and `StatusText`.
@MainActor
public final class MainWindow {
    /// The `GtkApplicationWindow`; the view holds a reference to it.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    public let ring = RingView()
    /// The session, or nil when the cache folder could not be opened (`cacheError` says why).
    public let session: DownloadSession?
    public let cacheError: DownloadError?
    /// The library pane and its wiring; nil when the cache folder could not be opened.
    public let library: LibraryCoordinator?
    /// Told a video's path when it starts playing in the window (Play, or a file opened).
    public var onPlay: (@MainActor (String) -> Void)?
    /// The video page's player and view (MainWindow+Playback.swift).
    public private(set) lazy var playback: PlaybackController = makePlayback()

    let ui: MainWindowLayout
    var actions: [FetchplayAction: OpaquePointer] = [:]
    private var previewedURL: String?

    public init(application: UnsafeMutablePointer<GtkApplication>, cache: Result<Cache, DownloadError>) {
        let libraryView: LibraryView? = if case .success = cache { LibraryView() } else { nil }
        ui = MainWindowLayout(application: application, ring: ring.widget, library: libraryView?.widget)
        widget = ui.window
        g_object_ref(widget.rawObject)
        switch cache {
        case .success(let cache):
            let settings = LibrarySettings.load(from: cache)
            let session = DownloadSession(cache: cache, maxRunning: settings.maxRunning)
            self.session = session
            library = libraryView.map { LibraryCoordinator(session: session, view: $0, settings: settings) }
            cacheError = nil
        case .failure(let error): session = nil; library = nil; cacheError = error
        }
        installActions()
        installPlayback()
        installLibrary()
        ui.entry.connect("activate") { [weak self] in self?.perform(.start) }
        ui.entry.connect("changed") { [weak self] in self?.entryChanged() }
        widget.connectReturningBool("close-request") { [weak self] in self?.closeRequested() ?? false }
        session?.onChange = { [weak self] in self?.refresh() }
        refresh()
    }

    deinit { g_object_unref(widget.rawObject) }

    public func present() { gtk_window_present(widget.as(GtkWindow.self)) }

    /// The entry's text.
    public var urlText: String {
        get { String(cString: gtk_editable_get_text(ui.entry.opaque)) }
        set { gtk_editable_set_text(ui.entry.opaque, newValue) }
    }

    /// Puts `url` in the entry and starts it (or shows it done when cached): `fetchplay URL`.
    public func download(url: String) {
        urlText = url
        perform(.start)
    }

    /// Shows a local video file for playback: `fetchplay FILE` and Open.
    public func openFile(path: String) {
        play(path: path, title: URL(fileURLWithPath: path).lastPathComponent)
    }

    // MARK: What tests and people can see

    /// The inline message under the entry, when one shows.
    public var urlMessage: String? {
        guard gtk_widget_get_visible(ui.urlMessage) != 0 else { return nil }
        return String(cString: gtk_label_get_text(ui.urlMessage.opaque))
    }

    /// The error sentence of the failed state, when it shows.
    public var errorMessage: String? {
        guard gtk_widget_get_visible(ui.errorBox) != 0 else { return nil }
        return String(cString: gtk_label_get_text(ui.errorLabel.opaque))
    }

    public var statusText: String { String(cString: gtk_label_get_text(ui.statusLabel.opaque)) }

    public var isPlayVisible: Bool { gtk_revealer_get_reveal_child(ui.playRevealer.opaque) != 0 }

    /// "download" or "video".
    public var visiblePage: String {
        gtk_stack_get_visible_child_name(ui.stack.opaque).map { String(cString: $0) } ?? ""
    }

    /// The place for the video view; the playback issue replaces the placeholder in it.
    public func setVideoView(_ view: UnsafeMutablePointer<GtkWidget>) {
        gtk_box_remove(ui.videoPage.as(GtkBox.self), ui.videoPlaceholder)
        gtk_box_append(ui.videoPage.as(GtkBox.self), view)
    }

    // MARK: Behaviour

    func startFromEntry() {
        guard let session else { return showURLMessage(cacheError?.message ?? "The cache is not available.") }
        do {
            try session.load(urlText)
        } catch {
            return showURLMessage(error.message)
        }
        showURLMessage(nil)
        if case .completed = session.state { return refresh() }
        session.start()
    }

    func play(path: String, title: String) {
        // The video view shows the title (the placeholder's label went with the placeholder).
        gtk_stack_set_visible_child_name(ui.stack.opaque, "video")
        playback.open(path: path, title: title)
        library?.played(path: path)
        onPlay?(path)
    }

    func showDownloadPage() {
        gtk_stack_set_visible_child_name(ui.stack.opaque, "download")
    }

    /// Shows `message` under the entry (nil hides it): a problem with what was entered.
    public func showURLMessage(_ message: String?) {
        if let message { Widgets.setText(ui.urlMessage, message) }
        Widgets.setVisible(ui.urlMessage, message != nil)
        if message != nil { gtk_widget_add_css_class(ui.entry, "error") } else { gtk_widget_remove_css_class(ui.entry, "error") }
    }

    private func entryChanged() {
        showURLMessage(nil)
        refresh()
        previewCachedDownload()
    }

    /// When the entry holds a URL the cache knows (a partial or a finished video), shows it, ready
    /// to Continue or Play. The cache is read off the main thread.
    private func previewCachedDownload() {
        guard let session, !session.isRunning,
              let url = try? WebAddress.identity(urlText), url != session.url, url != previewedURL else { return }
        previewedURL = url
        let cache = session.cache
        DispatchQueue.global(qos: .userInitiated).async {
            guard cache.entry(for: url) != nil else { return }
            MainContext.post { [weak self] in
                guard let self, let session = self.session, !session.isRunning,
                      (try? WebAddress.identity(self.urlText)) == url else { return }
                try? session.load(url)
            }
        }
    }

    /// Closing mid-download: hide at once, stop the task, and let the window go once the worker has
    /// stopped, so the partial is durable and ready to continue next time.
    private func closeRequested() -> Bool {
        guard let session, session.isAnyRunning else { return false }
        let app = gtk_window_get_application(widget.as(GtkWindow.self))
        gtk_widget_set_visible(widget, 0)
        if let app { g_application_hold(app.as(GApplication.self)) }
        nonisolated(unsafe) let window = widget
        session.stop {
            gtk_window_destroy(window.as(GtkWindow.self))
            if let app { g_application_release(app.as(GApplication.self)) }
        }
        return true
    }

    /// Brings every widget in line with the session.
    func refresh() {
        let state = session?.state ?? .idle
        let progress = session?.progress
        let entryURL = try? WebAddress.identity(urlText)
        let entryIsNew = entryURL != nil && entryURL != session?.url
        let controls = ControlState(state: state, progress: progress, hasPartial: session?.hasPartial ?? false,
                                    entryIsNew: entryIsNew, isWaiting: session?.isWaiting ?? false)
        setEnabled(.start, controls.canStart && session != nil)
        setEnabled(.pause, controls.canPause)
        setEnabled(.continue, controls.canContinue)
        // Space belongs to playback on the video page.
        setEnabled(.pauseOrContinue, (controls.canPause || controls.canContinue) && visiblePage != "video")
        setEnabled(.play, controls.canPlay)

        ring.tone = controls.ringTone
        ring.fraction = controls.ringFraction
        Widgets.setText(ui.titleLabel, session?.url.map(Self.displayName) ?? "Ready when you are")
        Widgets.setText(ui.statusLabel, session?.url == nil
            ? (cacheError?.message ?? "Paste a link to a video, then press Start.")
            : session?.isWaiting == true ? "Waiting for another download to finish"
            : StatusText.line(state: state, progress: progress))
        refreshLibraryActions()
        if let message = controls.errorMessage { Widgets.setText(ui.errorLabel, message) }
        Widgets.setVisible(ui.errorBox, controls.errorMessage != nil)
        // With a partial, Continue is the retry; without one, Try Again starts over.
        Widgets.setVisible(ui.retryButton, !controls.canContinue)
        if (gtk_revealer_get_reveal_child(ui.playRevealer.opaque) != 0) != controls.canPlay {
            gtk_revealer_set_reveal_child(ui.playRevealer.opaque, controls.canPlay ? 1 : 0)
        }
    }

    /// A name for the title line: the URL's last path component, else its host.
    nonisolated static func displayName(_ url: String) -> String {
        guard let parsed = URL(string: url) else { return url }
        let last = parsed.lastPathComponent
        return last.isEmpty || last == "/" ? (parsed.host ?? url) : (last.removingPercentEncoding ?? last)
    }
}

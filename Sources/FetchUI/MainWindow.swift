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
    private let ownedWidget: OwnedWidget
    public let ring = RingView()
    /// The session, or nil when the cache folder could not be opened (`cacheError` says why).
    public let session: DownloadSession?
    public let cacheError: DownloadError?
    /// The library pane and its wiring; nil when the cache folder could not be opened.
    public let library: LibraryCoordinator?
    /// Told a video's path when it starts playing in the window (Play, or a file opened).
    public var onPlay: (@MainActor (String) -> Void)?
    /// The video page's player and view (MainWindow+Playback.swift).
    public let playback: PlaybackController

    let ui: MainWindowLayout
    var actions: [FetchplayAction: OpaquePointer] = [:]
    /// Where the window's size is remembered; nil: not remembered (tests).
    let geometryFile: String?
    /// Set while the window itself writes the entry, so that is not taken for typing.
    private var settingEntry = false

    /// - Parameter geometryFile: where the size is remembered between runs (nil: nowhere).
    public init(application: UnsafeMutablePointer<GtkApplication>, cache: Result<Cache, DownloadError>,
                geometryFile: String? = nil) {
        let libraryView: LibraryView? = if case .success = cache { LibraryView() } else { nil }
        let video = VideoView()
        ui = MainWindowLayout(application: application, ring: ring.widget, library: libraryView?.widget,
                              video: video.widget)
        widget = ui.window
        self.geometryFile = geometryFile
        ownedWidget = OwnedWidget(widget)
        switch cache {
        case .success(let cache):
            let settings = LibrarySettings.load(from: cache)
            let session = DownloadSession(cache: cache, maxRunning: settings.maxRunning)
            self.session = session
            library = libraryView.map { LibraryCoordinator(session: session, view: $0, settings: settings) }
            cacheError = nil
        case .failure(let error): session = nil; library = nil; cacheError = error
        }
        playback = PlaybackController(window: widget, view: video,
                                      positions: session.map { [library] in
                                          PlaybackPositions(cacheRoot: $0.cache.root, library: library?.store)
                                      },
                                      audio: .automatic)
        installPlayback()
        installActions()
        installLibrary()
        installLayout()
        ui.entry.connect("activate") { [weak self] in self?.entryActivated() }
        ui.entry.connect("changed") { [weak self] in self?.entryChanged() }
        widget.connectReturningBool("close-request") { [weak self] in self?.closeRequested() ?? false }
        session?.observe { [weak self] _ in self?.refresh() }
        refresh()
    }

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

    // MARK: Behaviour

    /// The entry's text without surrounding blanks (a pasted link often ends with a newline).
    var entryText: String { urlText.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The buttons and the ring for the selected download and what the entry holds.
    var controls: ControlState {
        let entryURL = try? WebAddress.identity(entryText)
        let entryIsNew = !entryText.isEmpty && (entryURL == nil || entryURL != session?.url)
        return ControlState(state: session?.state ?? .idle, progress: session?.progress,
                            hasPartial: session?.hasPartial ?? false, entryIsNew: entryIsNew,
                            isWaiting: session?.isWaiting ?? false)
    }

    /// Start (a button, or Enter on something new): checks the link every time, says why it
    /// cannot be used, and otherwise starts it. Focus then goes to the download's controls, so
    /// Space pauses it.
    func startFromEntry() {
        guard let session else { return showURLMessage(cacheError?.message ?? "The cache is not available.") }
        guard !entryText.isEmpty else { return showURLMessage(nil) }
        do {
            try session.load(entryText)
        } catch {
            return showURLMessage(error.message)
        }
        showURLMessage(nil)
        if case .completed = session.state { return refresh() }
        session.start()
        refresh()
        focusPrimaryControl()
    }

    /// Enter in the entry: plays a link already downloaded, continues or retries the one shown,
    /// else checks and starts it.
    private func entryActivated() {
        let loaded = (try? WebAddress.identity(entryText)).flatMap { $0 == session?.url ? $0 : nil }
        guard loaded != nil, let session else { return startFromEntry() }
        let controls = self.controls
        if controls.canPlay { return playSelected() }
        if controls.canContinue { session.start() } else if controls.showsRetry { return startFromEntry() }
        refresh()
        focusPrimaryControl()
    }

    /// Plays the selected download once it is complete.
    func playSelected() {
        guard case .completed(let path) = session?.state else { return }
        play(path: path, title: session?.url.map(Self.displayName) ?? path)
    }

    func play(path: String, title: String) {
        gtk_stack_set_visible_child_name(ui.stack.opaque, "video")
        playback.open(path: path, title: title)
        // The video's name is the window's while it plays (the task switcher, the title bar).
        gtk_window_set_title(widget.as(GtkWindow.self), title)
        // Keys go to the video now: Space toggles playback, never a header button.
        playback.view.focus()
        library?.played(path: path)
        onPlay?(path)
        refresh()
    }

    func showDownloadPage() {
        guard visiblePage != "download" else { return }
        gtk_stack_set_visible_child_name(ui.stack.opaque, "download")
        gtk_window_set_title(widget.as(GtkWindow.self), "Fetchplay")
        refresh()
        focusPrimaryControl()
    }

    /// Ctrl+L: back to the download page with the link selected, ready to type over.
    func focusEntry() {
        showDownloadPage()
        showDownloadColumn()
        gtk_widget_grab_focus(ui.entry)
        gtk_editable_select_region(ui.entry.opaque, 0, -1)
    }

    /// Puts the focus on the control that does the next thing (Pause, Continue, Try Again, Play),
    /// else the entry; never leaves it on a header button by accident.
    func focusPrimaryControl() {
        let candidates = [ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton]
        if let button = candidates.first(where: { gtk_widget_is_visible($0) != 0 && gtk_widget_is_sensitive($0) != 0 }),
           gtk_widget_grab_focus(button) != 0 { return }
        gtk_widget_grab_focus(ui.entry)
    }

    /// Shows `message` under the entry (nil hides it): a problem with what was entered.
    public func showURLMessage(_ message: String?) {
        if let message { Widgets.setText(ui.urlMessage, message) }
        Widgets.setVisible(ui.urlMessage, message != nil)
        if message != nil { gtk_widget_add_css_class(ui.entry, "error") } else { gtk_widget_remove_css_class(ui.entry, "error") }
    }

    /// Typing clears the message; the panel follows the entry: another link than the one shown
    /// leaves the selection (the library row too), a link the cache knows is shown.
    private func entryChanged() {
        guard !settingEntry else { return }
        showURLMessage(nil)
        if let session, session.url != nil, (try? WebAddress.identity(entryText)) != session.url {
            session.clearSelection()
        }
        refresh()
        previewCachedDownload()
    }

    /// When the entry holds a URL the cache knows (a partial or a finished video), shows it, ready
    /// to Continue or Play. The cache is read off the main thread.
    private func previewCachedDownload() {
        guard let session, let url = try? WebAddress.identity(entryText), url != session.url else { return }
        if session.entries[url] != nil { return session.select(url: url) }
        let cache = session.cache
        DispatchQueue.global(qos: .userInitiated).async {
            guard cache.entry(for: url) != nil else { return }
            MainContext.post { [weak self] in
                guard let self, let session = self.session, session.url == nil,
                      (try? WebAddress.identity(self.entryText)) == url else { return }
                try? session.load(url)
            }
        }
    }

    /// Closing mid-download: hide at once, stop the task, and let the window go once the worker has
    /// stopped, so the partial is durable and ready to continue next time.
    private func closeRequested() -> Bool {
        saveGeometry()
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

    /// Brings every widget in line with the session: one current item, shown by the panel, the
    /// entry, the library's selection and the buttons alike.
    func refresh() {
        let state = session?.state ?? .idle
        let progress = session?.progress
        // A download chosen elsewhere (a library row) puts its link in the entry.
        if let url = session?.url, (try? WebAddress.identity(entryText)) != url {
            settingEntry = true
            urlText = url
            settingEntry = false
        }
        let controls = self.controls
        // Only what applies shows; if the focused button goes (or greys out), the focus moves to
        // the one that takes its place (Pause → Continue), never to whatever GTK finds first.
        let focusWasOnControl = [ui.startButton, ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton]
            .contains { Widgets.focusIsIn(widget, $0) }
        updateActions()

        ring.tone = controls.ringTone
        ring.fraction = controls.ringFraction
        let title = session?.url.map(Self.displayName) ?? "Ready when you are"
        Widgets.setText(ui.titleLabel, title)
        Widgets.setTooltip(ui.titleLabel, session?.url == nil ? nil : title)
        Widgets.setText(ui.statusLabel, session?.url == nil
            ? (cacheError?.message ?? "Paste a link to a video, then press Start.")
            : session?.isWaiting == true ? "Waiting for another download to finish"
            : StatusText.line(state: state, progress: progress))
        library?.view.select(url: session?.url)
        if let message = controls.errorMessage { Widgets.setText(ui.errorLabel, message) }
        Widgets.setVisible(ui.errorBox, controls.errorMessage != nil)

        Widgets.setVisible(ui.startButton, controls.showsStart)
        Widgets.setVisible(ui.retryButton, controls.showsRetry)
        Widgets.setVisible(ui.pauseButton, controls.canPause)
        Widgets.setVisible(ui.continueButton, controls.canContinue)
        Widgets.setVisible(ui.controls, controls.canPause || controls.canContinue || controls.canPlay)
        if (gtk_revealer_get_reveal_child(ui.playRevealer.opaque) != 0) != controls.canPlay {
            gtk_revealer_set_reveal_child(ui.playRevealer.opaque, controls.canPlay ? 1 : 0)
        }
        if focusWasOnControl, visiblePage == "download",
           !([ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton, ui.startButton].contains { Widgets.focusIsIn(widget, $0) && gtk_widget_is_visible($0) != 0 }) {
            focusPrimaryControl()
        }
    }

    /// A name for the title line: the URL's last path component, else its host.
    nonisolated static func displayName(_ url: String) -> String {
        guard let parsed = URL(string: url) else { return url }
        let last = parsed.lastPathComponent
        return last.isEmpty || last == "/" ? (parsed.host ?? url) : (last.removingPercentEncoding ?? last)
    }
}

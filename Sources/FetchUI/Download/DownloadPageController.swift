import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The download page's controller: the entry, the ring, the title and status line, the error,
/// and the buttons, for the one current download.
///
/// It turns the entry's text and the store's state into widgets (`refresh()`) through the
/// pure `ControlState` and `StatusText`, and Enter / Start into `DownloadStore` calls. The
/// window owns it beside the video page's `PlaybackController` and switches between the two.
@MainActor
final class DownloadPageController {
    private var connections: [SignalConnection] = []
    let ui: MainWindowLayout
    let ring: RingView
    let store: DownloadStore?
    let cacheError: DownloadError?
    private let window: UnsafeMutablePointer<GtkWidget>
    private var owned: [OwnedWidget] = []
    /// The window: it plays, shows pages and brings its actions in line.
    weak var host: (any WindowHost)?
    /// The link to play as soon as Play is offered for it (`--play URL`).
    private var pendingPlay: String?
    /// Reads the cache for a link typed in the entry, off the main thread; the latest look is
    /// held (a new one replaces it, the one before finishing on its own).
    private var cacheLook: Worker?
    /// A start from the entry is waiting for its control to show (`focusControlsOnceShown`).
    private var focusAwaitsControl = false

    init(ui: MainWindowLayout, ring: RingView, store: DownloadStore?, cacheError: DownloadError?,
         window: UnsafeMutablePointer<GtkWidget>) {
        self.ui = ui
        self.ring = ring
        self.store = store
        self.cacheError = cacheError
        self.window = window
        ui.entry.connect("activate") { [weak self] in self?.entryActivated() }.store(in: &connections)
        ui.entry.connect("changed") { [weak self] in self?.entryChanged() }.store(in: &connections)
        owned = OwnedWidget.keep(window)
    }

    /// Whether the download page shows now.
    private var isShown: Bool { (host?.visiblePage ?? "download") == "download" }

    /// The entry's text.
    public var urlText: String {
        get { String(cString: gtk_editable_get_text(ui.entry.opaque)) }
        set { gtk_editable_set_text(ui.entry.opaque, newValue) }
    }

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

    /// The entry's text without surrounding blanks (a pasted link often ends with a newline).
    var entryText: String { urlText.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The buttons and the ring for the selected download and what the entry holds.
    var controls: ControlState {
        let entryURL = try? WebAddress.identity(entryText)
        let entryIsNew = !entryText.isEmpty && (entryURL == nil || entryURL != store?.url)
        return ControlState(state: store?.state ?? .idle, progress: store?.progress,
                            hasPartial: store?.hasPartial ?? false, entryIsNew: entryIsNew,
                            isWaiting: store?.isWaiting ?? false, canWatch: watchableBoard != nil)
    }

    /// Start (a button, or Enter on something new): checks the link every time, says why it
    /// cannot be used, and otherwise starts it. Focus then goes to the download's controls, so
    /// Space pauses it. A file on this computer (a path, `~/…`, a file name here) is no link:
    /// it opens as a local video when it is there.
    func startFromEntry() {
        guard !entryText.isEmpty else { return showURLMessage(nil) }
        if let local = LocalPath(entryText) {
            guard local.isFile else { return showURLMessage(DownloadError.localFile(local).message) }
            showURLMessage(nil)
            host?.play(path: local.path, title: (local.path as NSString).lastPathComponent)
            return
        }
        guard let store else { return showURLMessage(cacheError?.message ?? tr("The cache is not available.")) }
        let context: RequestContext?
        do throws(RequestContextError) {
            context = try ui.request.context()
        } catch {
            return showURLMessage(error.message)
        }
        if let context {
            // The download keeps what the section held; the fields let go of it.
            do throws(DownloadError) {
                try store.start(entryText, context: context)
            } catch {
                return showURLMessage(error.message)
            }
            ui.request.clear()
            showURLMessage(nil)
            refresh()
            return focusControlsOnceShown()
        }
        do {
            try store.load(entryText)
        } catch {
            return showURLMessage(error.message)
        }
        showURLMessage(nil)
        if case .completed = store.state { return refresh() }
        store.start()
        refresh()
        focusControlsOnceShown()
    }

    /// Enter in the entry: plays a link already downloaded, continues or retries the one shown,
    /// else checks and starts it.
    func entryActivated() {
        let loaded = (try? WebAddress.identity(entryText)).flatMap { $0 == store?.url ? $0 : nil }
        guard loaded != nil, let store else { return startFromEntry() }
        let controls = self.controls
        if controls.canPlay { return playSelected() }
        if controls.canContinue { store.start() } else if controls.showsRetry { return startFromEntry() }
        // Loaded and never started (an HLS link whose choice of variant was cancelled): Enter starts it.
        else if store.state == .idle, !store.hasPartial, !store.isWaiting { return startFromEntry() }
        refresh()
        focusControlsOnceShown()
    }

    /// After a start from the entry: the download's control takes the focus, now or, when none
    /// shows yet (an HLS or DASH link reads its playlist first), as soon as one does, unless the
    /// entry changed meanwhile. Left in the entry, the focus would have Space type over the link.
    private func focusControlsOnceShown() {
        focusPrimaryControl()
        focusAwaitsControl = Widgets.focusIsIn(window, ui.entry)
    }

    /// Plays the selected download: the finished file, or the partial while it downloads once
    /// its start is on disk.
    func playSelected() {
        guard let store, let url = store.url else { return }
        if case .completed(let path) = store.state {
            host?.play(path: path, title: LinkTitle.of(url))
        } else if let board = watchableBoard {
            host?.watch(board: board, link: url, title: LinkTitle.of(url))
        }
    }

    /// Plays `url` once it can (now, if it can already); nil forgets a pending one.
    func playWhenReady(_ url: String?) {
        pendingPlay = url
        // An HLS or DASH download brings the start first, with the whole line, for the player
        // that waits for it.
        if let url { store?.queue.board(for: url)?.want(seconds: 0) }
        refresh()
    }

    /// The selected download's board when the video can start playing before it is complete:
    /// a file's start on disk, or an HLS or DASH presentation's first segments.
    private var watchableBoard: DownloadBoard? {
        guard let store, let url = store.url, store.state.completedPath == nil,
              let board = store.queue.board(for: url),
              board.coverage.canStartPlaying || board.stream?.canStartPlaying == true else { return nil }
        return board
    }

    /// Puts the focus on the control that does the next thing (Pause, Continue, Try Again, Play),
    /// else the entry; never leaves it on a header button by accident.
    func focusPrimaryControl() {
        let candidates = [ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton]
        if let button = candidates.first(where: { gtk_widget_is_visible($0) != 0 && gtk_widget_is_sensitive($0) != 0 }),
           gtk_widget_grab_focus(button) != 0 {
            // A link selected when the entry had the focus would stay highlighted behind it.
            gtk_editable_set_position(ui.entry.opaque, -1)
            return
        }
        gtk_widget_grab_focus(ui.entry)
    }

    /// Shows `message` under the entry (nil hides it): a problem with what was entered.
    public func showURLMessage(_ message: String?) {
        if let message { Widgets.setText(ui.urlMessage, message) }
        Widgets.setVisible(ui.urlMessage, message != nil)
        if message != nil { gtk_widget_add_css_class(ui.entry, "error") } else { gtk_widget_remove_css_class(ui.entry, "error") }
    }

    /// Typing clears the message; the panel follows the entry: another link than the one shown
    /// leaves the selection (the library row too), a link the cache knows is shown. The entry
    /// naming the selected download (as `refresh()` writes it) changes nothing.
    private func entryChanged() {
        let selected = store?.url
        if let selected, (try? WebAddress.identity(entryText)) == selected { return }
        focusAwaitsControl = false
        showURLMessage(nil)
        if selected != nil { store?.clearSelection() }
        refresh()
        previewCachedDownload()
    }

    /// When the entry holds a URL the cache knows (a partial or a finished video), shows it, ready
    /// to Continue or Play. The cache is read off the main thread.
    private func previewCachedDownload() {
        guard let store, let url = try? WebAddress.identity(entryText), url != store.url else { return }
        if store.entries[url] != nil { return store.select(url: url) }
        let cache = store.cache
        cacheLook = Worker.run(name: "fetchplay cache look", stage: .media, .skippable) {
            guard cache.entry(for: url) != nil else { return }
            MainContext.post { [weak self] in
                guard let self, let store = self.store, store.url == nil,
                      (try? WebAddress.identity(self.entryText)) == url else { return }
                try? store.load(url)
            }
        }
    }

    /// Brings every widget in line with the store: one current item, shown by the panel, the
    /// entry, the library's selection and the buttons alike.
    func refresh() {
        let state = store?.state ?? .idle
        let progress = store?.progress
        // A download chosen elsewhere (a library row) puts its link in the entry.
        if let url = store?.url, (try? WebAddress.identity(entryText)) != url { urlText = url }
        let controls = self.controls
        // Only what applies shows; if the focused button goes (or greys out), the focus moves to
        // the one that takes its place (Pause → Continue), never to whatever GTK finds first.
        let focusWasOnControl = [ui.startButton, ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton]
            .contains { Widgets.focusIsIn(window, $0) }
        host?.updateActions()

        ring.tone = controls.ringTone
        ring.fraction = controls.ringFraction
        let title = store.flatMap { store in store.url.map(store.title) } ?? tr("Ready when you are")
        Widgets.setText(ui.titleLabel, title)
        Widgets.setTooltip(ui.titleLabel, store?.url == nil ? nil : title)
        Widgets.setText(ui.statusLabel, store?.url == nil
            ? (cacheError?.message ?? tr("Paste a link to a video, then press Start."))
            : store?.isWaiting == true ? tr("Waiting for another download to finish")
            : StatusText.line(state: state, progress: progress,
                              linkRefreshed: (store?.url.flatMap { store?.entries[$0]?.refreshes } ?? 0) > 0))
        let carries = store?.contextSummary
        if let carries { Widgets.setText(ui.contextLabel, carries) }
        Widgets.setVisible(ui.contextLabel, carries != nil)
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
        if let pending = pendingPlay {
            if store?.url != pending || state.isFailed {
                pendingPlay = nil  // another item was chosen, or this one failed: nothing to play
            } else if controls.canPlay {
                pendingPlay = nil
                return playSelected()
            }
        }
        if focusAwaitsControl, isShown,
           controls.canPause || controls.canContinue || controls.showsRetry || controls.canPlay {
            focusAwaitsControl = false
            if Widgets.focusIsIn(window, ui.entry) { focusPrimaryControl() }
        } else if focusWasOnControl, isShown,
           !([ui.pauseButton, ui.continueButton, ui.retryButton, ui.playButton, ui.startButton].contains { Widgets.focusIsIn(window, $0) && gtk_widget_is_visible($0) != 0 }) {
            focusPrimaryControl()
        }
    }

}

import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The window: a download page and a video page, each with its controller
/// (`DownloadPageController`, `PlaybackController`), the library beside them, one action table.
///
/// Thin by design: it owns the widgets (`MainWindowLayout`), switches pages, and installs the
/// window's actions (MainWindow+Actions.swift); the controllers turn state into widgets.
@MainActor
public final class MainWindow {
    var connections: [SignalConnection] = []
    /// `notify::width` of the window's surface while it is realized (MainWindow+Layout.swift).
    var surfaceWidth: SignalConnection?
    /// The pending save of the window's size after a change (`saveGeometrySoon`).
    let geometrySave = OneShotTimer(milliseconds: 500)
    /// `unrealize` of the Preferences window while it is open (MainWindow+Preferences.swift).
    var preferencesClosed: SignalConnection?
    /// The `GtkApplicationWindow`; the view holds a reference to it.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget
    public let ring = RingView()
    /// The downloads and videos the window shows, or nil when the cache folder could not be
    /// opened (`cacheError` says why).
    public let store: DownloadStore?
    public let cacheError: DownloadError?
    /// The library pane and its wiring; nil when the cache folder could not be opened.
    public let library: LibraryCoordinator?
    private let plays = Observers<String>()

    /// Calls `body` with a video's path each time one starts playing in the window (Play, or a
    /// file opened), until the token is dropped.
    public func observePlays(_ body: @escaping @MainActor (String) -> Void) -> ObserverToken {
        plays.observe(body)
    }
    /// The video page's player and view (MainWindow+Playback.swift).
    public let playback: PlaybackController

    let ui: MainWindowLayout
    var actions: [FetchplayAction: OpaquePointer] = [:]
    /// Where the window's size is remembered; nil: not remembered (tests).
    let geometryFile: String?
    /// The download page's controller (the video page's is `playback`).
    let downloadPage: DownloadPageController
    /// What the person chose in Preferences; changes apply at once (MainWindow+Preferences.swift).
    public let preferences: Preferences
    /// The computer does not suspend while a download runs (when the preference says so).
    let downloadInhibitor: SessionInhibitor
    /// The Preferences window while it is open.
    var preferencesWindow: PreferencesWindow?
    /// Tells people about downloads that end while they look elsewhere.
    var notifier: DownloadNotifier?
    /// The window asking which variant of an HLS link to save, while it shows.
    var variantChooser: VariantChooser?
    /// The window asking which of a web page's videos to save, while it shows.
    var pageVideoChooser: PageVideoChooser?
    /// Whether `present()` ran once (the first places the keyboard focus).
    private var presented = false

    /// - Parameters:
    ///   - geometryFile: where the size is remembered between runs (nil: nowhere).
    ///   - preferences: the settings and where they are kept; nil: in memory, starting from the
    ///     cache's old `settings.json`.
    public init(application: UnsafeMutablePointer<GtkApplication>, cache: Result<Cache, DownloadError>,
                geometryFile: String? = nil, preferences: Preferences? = nil) {
        let libraryView: LibraryView? = if case .success = cache { LibraryView() } else { nil }
        let video = VideoView()
        ui = MainWindowLayout(application: application, ring: ring.widget, library: libraryView?.widget,
                              video: video.widget)
        widget = ui.window
        self.geometryFile = geometryFile
        ownedWidget = OwnedWidget(widget)
        switch cache {
        case .success(let cache):
            let preferences = preferences ?? Preferences(legacyOf: cache)
            self.preferences = preferences
            let settings = preferences.settings
            let store = DownloadStore(cache: cache, maxRunning: settings.maxRunning, presentations: .gstreamer,
                                      settings: settings.library)
            self.store = store
            library = libraryView.map { LibraryCoordinator(store: store, view: $0) }
            cacheError = nil
        case .failure(let error):
            self.preferences = preferences ?? Preferences()
            store = nil; library = nil; cacheError = error
        }
        downloadInhibitor = SessionInhibitor(window: widget, flags: GTK_APPLICATION_INHIBIT_SUSPEND,
                                             reason: tr("Downloading videos"))
        downloadPage = DownloadPageController(ui: ui, ring: ring, store: store, cacheError: cacheError, window: widget)
        playback = PlaybackController(window: widget, view: video,
                                      positions: store.map { PlaybackPositions(cacheRoot: $0.cache.root, library: $0) },
                                      audio: .automatic)
        installPlayback()
        installActions()
        installLibrary()
        installLayout()
        installPreferences()
        installNotifications()
        store?.host = self
        downloadPage.host = self
        g_object_set_data_full(widget.as(GObject.self), Self.ownerKey, Unmanaged.passRetained(Weak(self)).toOpaque()) {
            releaseBox($0)
        }
        widget.connectReturningBool("close-request") { [weak self] in self?.closeRequested() ?? false }.store(in: &connections)
        store?.observe { [weak self] _ in self?.refresh() }
        refresh()
    }

    public func present() {
        if !presented {
            presented = true
            placeInitialFocus()
        }
        gtk_window_present(widget.as(GtkWindow.self))
    }

    /// The `MainWindow` behind a GTK window, if it is one (the app's actions find theirs).
    public static func of(_ window: UnsafeMutablePointer<GtkWindow>) -> MainWindow? {
        g_object_get_data(window.as(GObject.self), ownerKey).map { Unmanaged<Weak<MainWindow>>.fromOpaque($0).takeUnretainedValue().object } ?? nil
    }

    private static let ownerKey = "fetchplay-main-window"

    /// Puts `url` in the entry and starts it (or shows it done when cached): `fetchplay URL`.
    public func download(url: String) {
        downloadPage.urlText = url
        activate(.start)
    }

    /// `fetchplay --play URL`: downloads the link and plays it as soon as its start is on disk
    /// (at once when it is already downloaded); choosing another item meanwhile cancels that.
    public func downloadAndPlay(url: String) {
        download(url: url)
        downloadPage.playWhenReady(store?.url)
    }

    /// Shows a local video file for playback: `fetchplay FILE` and Open.
    public func openFile(path: String) {
        play(path: path, title: URL(fileURLWithPath: path).lastPathComponent)
    }

    /// "download" or "video".
    public var visiblePage: String {
        gtk_stack_get_visible_child_name(ui.stack.opaque).map { String(cString: $0) } ?? ""
    }

    // MARK: Behaviour

    /// Brings every widget in line: the download page (which updates the actions too).
    func refresh() { downloadPage.refresh() }

    func play(path: String, title: String) {
        showVideoPage()
        playback.open(path: path, title: title)
        // The video's name is the window's while it plays (the task switcher, the title bar).
        gtk_window_set_title(widget.as(GtkWindow.self), title)
        // Keys go to the video now: Space toggles playback, never a header button.
        playback.view.focus()
        library?.played(path: path)
        plays.notify(path)
        refresh()
    }

    /// Plays a video that is still downloading, from the bytes on disk as they arrive.
    func watch(board: DownloadBoard, link: String, title: String) {
        showVideoPage()
        playback.open(stream: board, link: link, title: title)
        gtk_window_set_title(widget.as(GtkWindow.self), title)
        playback.view.focus()
        refresh()
    }

    /// The video page; with a crossfade from the page before, unless the window has drawn
    /// nothing yet (`fetchplay FILE`): then there is nothing to fade from, and under a software
    /// GL renderer the fade's frames would take the CPU the decoder needs for the first frame.
    private func showVideoPage() {
        let drawn = gtk_widget_get_frame_clock(widget).map { gdk_frame_clock_get_frame_counter($0) > 0 } ?? false
        gtk_stack_set_visible_child_full(ui.stack.opaque, "video",
                                         drawn ? gtk_stack_get_transition_type(ui.stack.opaque) : GTK_STACK_TRANSITION_TYPE_NONE)
    }

    func showDownloadPage() {
        guard visiblePage != "download" else { return }
        gtk_stack_set_visible_child_name(ui.stack.opaque, "download")
        gtk_window_set_title(widget.as(GtkWindow.self), "Fetchplay")
        refresh()
        downloadPage.focusPrimaryControl()
    }

    /// Ctrl+L: back to the download page with the link selected, ready to type over.
    func focusEntry() {
        showDownloadPage()
        showDownloadColumn()
        gtk_widget_grab_focus(ui.entry)
        gtk_editable_select_region(ui.entry.opaque, 0, -1)
    }

    /// Closing mid-download: hide at once, stop the task, and let the window go once the worker has
    /// stopped, so the partial is durable and ready to continue next time.
    private func closeRequested() -> Bool {
        variantChooser?.cancel()
        pageVideoChooser?.cancel()
        geometrySave.cancel()
        saveGeometry()
        guard let store, store.isAnyRunning else { return false }
        let app = gtk_window_get_application(widget.as(GtkWindow.self))
        gtk_widget_set_visible(widget, 0)
        if let app { g_application_hold(app.as(GApplication.self)) }
        nonisolated(unsafe) let window = widget
        store.stop {
            gtk_window_destroy(window.as(GtkWindow.self))
            if let app { g_application_release(app.as(GApplication.self)) }
        }
        return true
    }
}

import CAdwaita
import CGtk
import FetchCore
import FetchViewModel
import FetchPlayer
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The `GtkApplication`: one window, command-line URLs and files arrive through `open`.
@MainActor
public final class FetchplayApplication {
    nonisolated(unsafe) public let application: UnsafeMutablePointer<GtkApplication>
    /// The cache folder; nil means `Cache.defaultRoot()`. Set before the app starts.
    public var cacheRoot: String?
    /// Where finished videos go; nil: inside the cache (`CACHE/videos`).
    public var videoFolder: String?
    /// Where the window's size is remembered; nil: not remembered.
    public var geometryFile: String? = WindowGeometry.defaultFile
    /// Where Preferences are kept (`settings.ini`); nil: in memory only. Set before the app starts.
    public var settingsStore: SettingsStore? = SettingsStore()
    public let dataDirectory: DataDirectory?
    /// The window, once activated; nil again after it is closed.
    public private(set) var window: MainWindow?

    private var fileChooser: NativeFileChooser?
    /// `unrealize` of the window it made, while it shows.
    private var windowClosed: SignalConnection?
    private var connections: [SignalConnection] = []
    /// The start-up warm-ups (decoder plug-ins, the sound device), held until the shutdown joins them.
    private var warmUps: [Worker] = []
    private let startupObservers = Observers<FetchplayApplication>()
    private let windowObservers = Observers<MainWindow>()

    /// Calls `body` once GTK has started (the display exists), before any window.
    public func observeStartup(_ body: @escaping @MainActor (FetchplayApplication) -> Void) {
        startupObservers.add(body)
    }

    /// Calls `body` with each window the application makes, before it shows.
    public func observeWindows(_ body: @escaping @MainActor (MainWindow) -> Void) {
        windowObservers.add(body)
    }

    /// Whether the Open dialog is showing (tests: keys must not open it by accident).
    public var isChoosingFile: Bool { fileChooser != nil }

    /// - Parameter nonUnique: run without a session bus name (tests, several instances).
    public init(nonUnique: Bool = false, dataDirectory: DataDirectory? = DataDirectory.locate()) {
        var flags = G_APPLICATION_HANDLES_OPEN
        if nonUnique { flags = GApplicationFlags(rawValue: flags.rawValue | G_APPLICATION_NON_UNIQUE.rawValue) }
        application = gtk_application_new(AppInfo.id, flags)!
        self.dataDirectory = dataDirectory
        let app = application.as(GApplication.self)
        app.connect("startup") { [weak self] in self?.startup() }.store(in: &connections)
        app.connect("activate") { [weak self] in self?.presentWindow() }.store(in: &connections)
        // However the Swift object fares, the process must end its work in order at the end.
        app.connect("shutdown") { Self.shutDown() }.keepForObjectLife()
        connectOpen()
    }

    /// The application's end, after the main loop (GApplication's "shutdown"), in one order, each
    /// step joined before the next (`Shutdown.finish` carries it out):
    ///
    /// 1. stop downloads: the window's close asked every download to stop and went once their
    ///    workers had; here every download's worker (and a variant read) is joined, then the
    ///    checkpoints they queued end;
    /// 2. stop playback: every player's worker, its pipelines gone to NULL, is joined;
    /// 3. join the thumbnailers, the decoder preload, the sound probe and the remux warm-up;
    /// 4. flush records: the library's and the playback positions' workers end after their
    ///    last write (a position saved as playback stopped included);
    /// 5. flush settings: Preferences' writes and anything the steps before started;
    ///
    /// then `main` exits. Ten seconds at most in all: a stuck pipeline is reported, not waited for.
    static func shutDown(_ shutdown: Shutdown = .process) {
        shutdown.finishBeforeExit()
    }

    deinit { g_object_unref(application.rawObject) }

    /// Runs the main loop until the last window closes; returns the exit status.
    public func run(arguments: [String] = CommandLine.arguments) -> Int32 {
        var cStrings = arguments.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        return cStrings.withUnsafeMutableBufferPointer { argv in
            g_application_run(application.as(GApplication.self), Int32(argv.count), argv.baseAddress)
        }
    }

    /// The window, made on first use, shown and raised.
    @discardableResult
    public func presentWindow() -> MainWindow {
        let window = currentWindow ?? makeWindow()
        window.present()
        return window
    }

    /// The window the app's actions are for: the one it made, else its active window (a window
    /// made for this application by someone else, as tests do).
    var currentWindow: MainWindow? {
        if let window { return window }
        return gtk_application_get_active_window(application).flatMap(MainWindow.of)
    }

    private func makeWindow() -> MainWindow {
        let cache: Result<Cache, DownloadError>
        do throws(DownloadError) {
            cache = .success(try Cache(root: cacheRoot ?? Cache.defaultRoot(), videos: videoFolder))
        } catch {
            cache = .failure(error)
        }
        let preferences: Preferences? = settingsStore.map { store in
            Preferences(store: store, migratingFrom: try? cache.get())
        }
        let window = MainWindow(application: application, cache: cache, geometryFile: geometryFile,
                                preferences: preferences)
        // The README's run command serves a bundled sample on 127.0.0.1 and offers it here, ready
        // to Start, so the whole path works offline on a fresh machine.
        if let suggested = ProcessInfo.processInfo.environment["FETCHPLAY_SUGGESTED_URL"], !suggested.isEmpty {
            window.downloadPage.urlText = suggested
        }
        // "unrealize", not "destroy": the window object outlives gtk_window_destroy while Swift
        // holds its reference, so "destroy" (emitted at dispose) would come too late or never.
        windowClosed = window.widget.connect("unrealize") { [weak self, weak window] in
            if let self, self.window === window { self.window = nil }
        }
        self.window = window
        windowObservers.notify(window)
        return window
    }

    private func startup() {
        // libadwaita's stylesheet, style manager (dark and light) and widgets; once, after GTK's
        // own start-up (the "startup" class handler ran first).
        adw_init()
        if let data = dataDirectory, let display = gdk_display_get_default() {
            let provider = gtk_css_provider_new()!
            gtk_css_provider_load_from_path(provider, data.styleSheet)
            gtk_style_context_add_provider_for_display(display, provider.opaque,
                                                       UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
            g_object_unref(provider.rawObject)
            gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(display), data.icons)
        }
        gtk_window_set_default_icon_name(AppInfo.id)
        installActions()
        // The preload first: it initialises GStreamer here, on the main thread (see its note).
        warmUps = [DecoderPreload.start(), AudioOutput.startProbe()]
        startupObservers.notify(self)
    }

    /// The `app.*` actions, each running its `ActionHandler`, and every accelerator of the table.
    private func installActions() {
        for action in FetchplayAction.allCases {
            let run: ((FetchplayApplication, String?) -> Void)? = switch action.handler {
            case .app(let handle): { app, _ in handle(app) }
            case .appLink(let handle): { app, link in if let link { handle(app, link) } }
            case .window, .windowLink: nil // the window's own (MainWindow+Actions)
            }
            if let run {
                action.install(in: application.opaque) { [weak self] parameter in
                    if let self { run(self, parameter) } // the link, for the actions that take one
                }.activation.store(in: &connections)
            }
            var accels: [UnsafeMutablePointer<CChar>?] = action.row.accelerators.map { strdup($0) } + [nil]
            accels.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                    gtk_application_set_accels_for_action(application, action.detailedName, $0.baseAddress)
                }
            }
            accels.forEach { free($0) }
        }
    }

    /// Ctrl+Q: closes the window (which pauses the downloads first), else quits at once.
    func quit() {
        if let window = currentWindow { gtk_window_close(window.widget.as(GtkWindow.self)) } else {
            g_application_quit(application.as(GApplication.self))
        }
    }

    /// Ctrl+O: a native file chooser for videos (GTK 4.8 has no GtkFileDialog).
    func chooseFile() {
        guard fileChooser == nil else { return }
        let parent = presentWindow().widget.as(GtkWindow.self)
        guard let chooser = gtk_file_chooser_native_new(tr("Open Video"), parent, GTK_FILE_CHOOSER_ACTION_OPEN,
                                                        "_Open", "_Cancel") else { return }
        let filter = fp_video_file_filter(tr("Videos"))
        gtk_file_chooser_add_filter(chooser, filter) // takes its own reference
        g_object_unref(filter.map(UnsafeMutableRawPointer.init))
        fileChooser = NativeFileChooser(chooser) { [weak self] path in
            self?.fileChooser = nil
            if let path { self?.presentWindow().openFile(path: path) }
        }
    }

    // MARK: open

    /// The hint of `g_application_open` that `fetchplay --play URL` sends (to the running
    /// instance, if there is one): download and play as soon as it can.
    public static let playHint = "play"

    /// `fetchplay URL…` / `fetchplay FILE…`: http(s) URIs download, local files open; anything
    /// else lands in the entry with a message saying why it cannot be used.
    func open(uris: [String], paths: [String?], hint: String = "") {
        let window = presentWindow()
        if hint == Self.playHint, let uri = uris.last, paths.last.map({ $0 == nil }) ?? false {
            return window.downloadAndPlay(url: uri)
        }
        for (uri, path) in zip(uris, paths) {
            if let path, FileManager.default.fileExists(atPath: path) {
                window.openFile(path: path)
            } else if let path {
                window.downloadPage.urlText = URL(fileURLWithPath: path).lastPathComponent
                window.downloadPage.showURLMessage(String(format: tr("There is no file at “%1$@”, and it is not a web address."), path))
            } else {
                window.download(url: uri) // http(s) starts; other schemes explain themselves inline
            }
        }
    }

    private func connectOpen() {
        typealias OpenHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<OpaquePointer?>?,
                                                Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        let handler: OpenHandler = { _, files, count, hint, data in
            var uris: [String] = [], paths: [String?] = []
            for index in 0..<Int(count) {
                guard let file = files?[index] else { continue }
                uris.append(String(glibTaking: g_file_get_uri(file)) ?? "")
                paths.append(String(glibTaking: g_file_get_path(file)))
            }
            let box = CallbackBox<Weak<FetchplayApplication>>.from(data)
            let hint = hint.map { String(cString: $0) } ?? ""
            MainActor.assumeIsolated { box.body.object?.open(uris: uris, paths: paths, hint: hint) }
        }
        application.connection("open", box: CallbackBox(Weak(self)),
                               handler: unsafeBitCast(handler, to: GCallback.self)).store(in: &connections)
    }
}

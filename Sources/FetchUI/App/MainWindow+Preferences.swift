import CGtk
import FetchCore
import GLibSupport

/// The window's side of Preferences, About and Keyboard Shortcuts: a changed setting applies at
/// once (downloads at once to the queue, the videos folder to the next finished video, the size
/// cap to the library, keeping awake to the inhibitor), and the three windows open over this one.
extension MainWindow {
    func installPreferences() {
        preferences.observe { [weak self] settings in self?.apply(settings) }
        store?.speedLimit.bytesPerSecond = Self.bytesPerSecond(preferences.settings.speedLimit)
        store?.proxy.setting = preferences.settings.proxy
        store?.connections.connections = preferences.settings.connections
        store?.observe { [weak self] _ in self?.updateKeepAwake() }
        // At gtk_window_destroy (see FetchplayApplication for why not "destroy").
        widget.connect("unrealize") { [weak self] in
            guard let self else { return }
            // Preferences' last write goes on its queue; the process's shutdown waits for it.
            self.downloadInhibitor.update(active: false)
        }.store(in: &connections)
    }

    /// Applies changed settings. The videos folder is applied only when it changes here, so a
    /// `--videos-dir` given for this run stays until someone chooses another folder.
    private func apply(_ settings: AppSettings) {
        guard let store else { return }
        store.maxRunning = settings.maxRunning
        if let folder = settings.videosFolder, folder != store.cache.videoFolder {
            do throws(DownloadError) {
                try store.cache.setVideoFolder(folder)
            } catch {
                downloadPage.showURLMessage(error.message)
            }
        }
        if store.settings.sizeCap != settings.sizeCap {
            store.settings = settings.library
            store.reload() // evicts at once down to a lower cap
        }
        // All downloads together; running ones follow at once.
        store.speedLimit.bytesPerSecond = Self.bytesPerSecond(settings.speedLimit)
        store.proxy.setting = settings.proxy
        store.connections.connections = settings.connections
        updateKeepAwake()
        refresh()
    }

    /// The Preferences' speed limit (KiB a second, nil for none) in bytes a second.
    static func bytesPerSecond(_ kibibytes: Int?) -> Int64? { kibibytes.map { Int64($0) * 1024 } }

    /// Keeps the computer from suspending while any download runs, if the person wants that.
    func updateKeepAwake() {
        downloadInhibitor.update(active: preferences.settings.keepAwake && (store?.isAnyRunning ?? false))
    }

    /// The folder finished videos go to now.
    var currentVideoFolder: String { store?.cache.videoFolder ?? preferences.settings.videosFolder ?? "" }

    // MARK: The windows over this one

    /// Ctrl+comma: the Preferences window, made once and raised again while it is open.
    public func showPreferences() {
        if let open = preferencesWindow { return open.present() }
        let window = PreferencesWindow(application: gtk_window_get_application(widget.as(GtkWindow.self)),
                                       parent: widget.as(GtkWindow.self), preferences: preferences,
                                       currentFolder: { [weak self] in self?.currentVideoFolder ?? "" })
        preferencesWindow = window
        // Let go once it is closed, but not inside GTK's own teardown of it: the last reference
        // dropped there would finalize its widgets while they are being disposed.
        preferencesClosed = window.widget.connect("unrealize") { [weak self, weak window] in
            MainContext.post { [weak self, weak window] in
                if let self, let window, self.preferencesWindow === window { self.preferencesWindow = nil }
            }
        }
        window.present()
    }

    /// Ctrl+?: every key of the action table, grouped by where it works.
    public func showShortcuts() {
        guard let shortcuts = ShortcutsWindow.make(parent: widget.as(GtkWindow.self)) else { return }
        gtk_window_present(shortcuts.as(GtkWindow.self))
    }

    /// About Fetchplay: version, licence, website, credits.
    public func showAbout() {
        gtk_window_present(AboutWindow.make(parent: widget.as(GtkWindow.self)).as(GtkWindow.self))
    }
}

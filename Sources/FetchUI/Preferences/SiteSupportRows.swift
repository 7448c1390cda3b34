import CAdwaita
import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The Preferences' site support group: which yt-dlp Fetchplay asks about pages it cannot read
/// by itself (its managed copy, one on PATH, or none) and its version, a button that installs
/// or updates the managed copy, and whether updates follow yt-dlp's releases or its nightly
/// builds.
///
/// Finding the version and installing run on a thread of their own (`SiteSupport` runs
/// programs); the rows hear back on the main thread. While pip runs, the status row's spinner
/// turns and its subtitle says the step; a failure is one sentence there.
///
/// ```
/// group "Site support"
/// ├─ status row   yt-dlp: which one and its version ─ spinner · Install/Update
/// └─ AdwComboRow  Updates: Stable releases / Nightly builds
/// ```
@MainActor
final class SiteSupportRows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    private var connections: [SignalConnection] = []
    let group: Widget
    let statusRow: Widget
    let button: Widget
    let spinner: Widget
    /// AdwComboRow: stable or nightly, in `SiteSupport.Channel.allCases`' order.
    let channelRow: Widget
    private var owned: [OwnedWidget] = []
    private let preferences: Preferences
    /// Where `SiteSupport` looks (XDG_DATA_HOME, PATH) and what its children get.
    private let environment: [String: String]
    /// What the last check found; nil while it runs.
    private(set) var status: SiteSupport.Status?
    /// Whether an install or an update runs now.
    private(set) var isInstalling = false
    /// The last install's failure, shown until the next one starts.
    private(set) var failure: String?
    /// The thread of the running check or install, and the stop an install listens to.
    private var worker: Worker?
    private let stop = StopSignal()
    private var refreshing = false

    init(preferences: Preferences, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.preferences = preferences
        self.environment = environment
        button = gtk_button_new_with_mnemonic(tr("_Install"))!
        spinner = gtk_spinner_new()!
        gtk_widget_set_visible(spinner, 0)
        statusRow = PreferencesRows.row(tr("yt-dlp"), subtitle: tr("Checking…"), control: button)
        adw_action_row_add_suffix(statusRow.as(AdwActionRow.self), spinner)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        let labels = [tr("Stable releases"), tr("Nightly builds")]
        let choices = labels.withCStringArray { gtk_string_list_new($0) }!
        channelRow = adw_combo_row_new()!
        adw_preferences_row_set_title(channelRow.as(AdwPreferencesRow.self), tr("Updates"))
        adw_action_row_set_subtitle(channelRow.as(AdwActionRow.self), tr("Which yt-dlp builds Install and Update take"))
        adw_combo_row_set_model(channelRow.as(AdwComboRow.self), choices)
        g_object_unref(choices.rawObject) // the row holds it
        group = PreferencesRows.group(tr("Site support"),
                                      description: tr("yt-dlp finds the videos of pages Fetchplay cannot read by itself; Fetchplay still downloads them"),
                                      [statusRow, channelRow])
        refresh()
        button.connect("clicked") { [weak self] in self?.install() }.store(in: &connections)
        channelRow.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in self?.chosen() }.store(in: &connections)
        owned = OwnedWidget.keep(group, statusRow, button, spinner, channelRow)
        check()
    }

    /// Stops a running install (the window closes).
    func cancel() { stop.raise() }

    /// Finds which yt-dlp there is and its version, off the main thread.
    func check() {
        status = nil
        let environment = environment
        worker = Worker.run(name: "fetchplay sites", stage: .media, .skippable) {
            let status = SiteSupport.status(environment: environment)
            MainContext.post { [weak self] in
                self?.status = status
                self?.refresh()
            }
        }
        refresh()
    }

    /// Installs or updates the managed copy, off the main thread, following the channel chosen.
    func install() {
        guard !isInstalling else { return }
        isInstalling = true
        failure = nil
        stop.lower()
        let environment = environment, channel = preferences.settings.siteSupportChannel, stop = stop
        // pip goes the way downloads go: the proxy chosen in Network (the desktop's by default).
        let proxy = preferences.settings.proxy
        setSubtitle(tr("Starting…"))
        worker = Worker.run(name: "fetchplay sites", stage: .media) {
            let result: Result<SiteSupport.Status, SiteSupportError>
            do throws(SiteSupportError) {
                result = .success(try SiteSupport.install(channel: channel, environment: environment, proxy: proxy, stop: stop) { line in
                    MainContext.post { [weak self] in self?.setSubtitle(line) }
                })
            } catch {
                result = .failure(error)
            }
            MainContext.post { [weak self] in self?.installed(result) }
        }
        // Quitting stops pip rather than waiting for it.
        worker?.whenStopping { stop.raise() }
        refresh()
    }

    private func installed(_ result: Result<SiteSupport.Status, SiteSupportError>) {
        isInstalling = false
        switch result {
        case .success(let found): status = found
        case .failure(let error): failure = error.message
        }
        refresh()
    }

    /// What the status row says now.
    var statusText: String {
        adw_action_row_get_subtitle(statusRow.as(AdwActionRow.self)).map { String(cString: $0) } ?? ""
    }

    private func setSubtitle(_ text: String) { PreferencesRows.setSubtitle(statusRow, text) }

    /// Puts the state into the rows.
    func refresh() {
        refreshing = true
        defer { refreshing = false }
        let channel = UInt32(SiteSupport.Channel.allCases.firstIndex(of: preferences.settings.siteSupportChannel) ?? 0)
        if adw_combo_row_get_selected(channelRow.as(AdwComboRow.self)) != channel {
            adw_combo_row_set_selected(channelRow.as(AdwComboRow.self), channel)
        }
        gtk_widget_set_visible(spinner, isInstalling || status == nil ? 1 : 0)
        gtk_spinner_set_spinning(spinner.opaque, isInstalling || status == nil ? 1 : 0)
        gtk_widget_set_sensitive(button, isInstalling || status == nil ? 0 : 1)
        let managed = status?.installation?.kind == .managed
        gtk_button_set_label(button.as(GtkButton.self), managed ? tr("_Update") : tr("_Install"))
        gtk_button_set_use_underline(button.as(GtkButton.self), 1)
        if let failure {
            gtk_widget_add_css_class(statusRow, "error")
            setSubtitle(failure)
        } else {
            gtk_widget_remove_css_class(statusRow, "error")
        }
        guard !isInstalling, failure == nil else { return }
        guard let status else { return setSubtitle(tr("Checking…")) }
        setSubtitle(Self.describe(status))
    }

    /// Which yt-dlp there is, in one line.
    static func describe(_ status: SiteSupport.Status) -> String {
        guard let installation = status.installation else {
            return tr("Not installed: Fetchplay reads pages by itself")
        }
        let version = status.version ?? tr("unknown version")
        switch installation.kind {
        case .managed:
            // TRANSLATORS: %1$@ is yt-dlp's version, such as 2026.11.23.
            return String(format: tr("Fetchplay’s own copy, version %1$@"), version)
        case .onPath:
            // TRANSLATORS: %1$@ is a program's path, %2$@ its version.
            return String(format: tr("%1$@ on this computer, version %2$@"), installation.program, version)
        }
    }

    private func chosen() {
        guard !refreshing else { return }
        let index = Int(adw_combo_row_get_selected(channelRow.as(AdwComboRow.self)))
        guard SiteSupport.Channel.allCases.indices.contains(index) else { return }
        preferences.change { $0.siteSupportChannel = SiteSupport.Channel.allCases[index] }
    }
}

import CAdwaita
import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization

/// The Preferences window (Ctrl+comma): where videos go, how many download at once, a speed
/// limit, the library's size cap, and whether the computer stays awake while downloading.
///
/// Each control writes through `Preferences.change` the moment it changes, so there is no Apply
/// button; whoever observes the preferences applies them (the window: the queue, the videos
/// folder, the library, the inhibitor). The controls show the settings as they are, whoever
/// changed them. The folder is chosen with `GtkFileChooserNative` (GTK 4.8 has no GtkFileDialog).
///
/// ```
/// AdwPreferencesWindow
/// └─ AdwPreferencesPage
///    ├─ group (no title)  a problem to tell (hidden when there is none)
///    ├─ Downloads         folder · at once · speed limit (switch, then its largest speed) · awake
///    ├─ Library           size cap (switch, then its largest size)
///    ├─ Network           ProxyRows: AdwComboRow (which proxy), AdwPasswordEntryRow (its address)
///    └─ Site support      SiteSupportRows: which yt-dlp and its version · Install/Update · stable/nightly
/// ```
@MainActor
public final class PreferencesWindow {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    private var connections: [SignalConnection] = []
    /// The `AdwPreferencesWindow` (a `GtkWindow`).
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget
    let preferences: Preferences
    /// The folder finished videos go to now (the setting, or the default the app chose).
    private let currentFolder: @MainActor () -> String

    /// The videos folder's row: the folder in use is its subtitle.
    let folderRow: Widget
    let folderButton: Widget
    let maxRunningSpin: Widget
    /// The most connections one download opens.
    let connectionsSpin: Widget
    let speedSwitch: Widget
    let speedSpin: Widget
    let capSwitch: Widget
    let capSpin: Widget
    let keepAwakeSwitch: Widget
    /// A problem to tell: a folder that cannot be used, settings that could not be saved.
    let messageLabel: Widget
    /// The group holding `messageLabel`, shown only while there is one.
    private let messageGroup: Widget
    /// The rows of the two limits, dimmed while their switch is off.
    private let speedLimitRow: Widget
    private let capSizeRow: Widget
    private var owned: [OwnedWidget] = []
    /// The network group: the proxy.
    let proxyRows: ProxyRows
    /// The site support group: yt-dlp, its version, install or update, its channel.
    let siteRows: SiteSupportRows

    /// KiB per second offered when the limit is turned on.
    static let defaultSpeedLimit = 1024
    /// Bytes per GB as sizes are shown (decimal, as GNOME shows them).
    static let bytesPerGB = 1_000_000_000.0
    /// GB offered when the cap is turned on.
    static let defaultCapGB = 10.0

    private var refreshing = false
    private var chooser: NativeFileChooser?
    private var folderMessage: String?

    public init(application: UnsafeMutablePointer<GtkApplication>?, parent: UnsafeMutablePointer<GtkWindow>?,
                preferences: Preferences, currentFolder: @escaping @MainActor () -> String,
                siteSupportEnvironment: [String: String] = ProcessInfo.processInfo.environment) {
        self.preferences = preferences
        self.currentFolder = currentFolder
        widget = adw_preferences_window_new()!
        ownedWidget = OwnedWidget(widget)
        let window = widget.as(GtkWindow.self)
        gtk_window_set_application(window, application)
        gtk_window_set_title(window, tr("Preferences"))
        gtk_window_set_transient_for(window, parent)
        gtk_window_set_destroy_with_parent(window, 1)
        gtk_window_set_modal(window, 0)
        gtk_window_set_default_size(window, 600, 640)
        gtk_widget_add_css_class(widget, "preferences")
        // A dozen settings on one page: nothing to search for.
        adw_preferences_window_set_search_enabled(widget.as(AdwPreferencesWindow.self), 0)

        folderButton = gtk_button_new_with_mnemonic(tr("_Choose…"))!
        gtk_widget_set_tooltip_text(folderButton, tr("Choose the folder for finished videos"))
        folderRow = PreferencesRows.row(tr("Videos folder"), subtitle: "", control: folderButton)
        adw_action_row_set_activatable_widget(folderRow.as(AdwActionRow.self), folderButton)

        let range = AppSettings.maxRunningRange
        maxRunningSpin = PreferencesRows.spinButton(Double(range.lowerBound)...Double(range.upperBound), step: 1, widthChars: 2)
        let maxRunningRow = PreferencesRows.row(tr("Downloads at once"), subtitle: tr("The others wait their turn"),
                                                control: maxRunningSpin)

        let connectionsRange = AppSettings.connectionsRange
        connectionsSpin = PreferencesRows.spinButton(Double(connectionsRange.lowerBound)...Double(connectionsRange.upperBound),
                                                     step: 1, widthChars: 2)
        let connectionsRow = PreferencesRows.row(tr("Connections per download"),
                                                 subtitle: tr("At most; more open only while they make it faster"),
                                                 control: connectionsSpin)

        speedSwitch = gtk_switch_new()!
        let speedRow = PreferencesRows.row(tr("Limit the download speed"), subtitle: tr("All downloads together"),
                                           control: speedSwitch)
        speedSpin = PreferencesRows.spinButton(16...9_999_999, step: 128, widthChars: 7)
        speedLimitRow = PreferencesRows.row(tr("Largest speed"), subtitle: nil,
                                            control: PreferencesRows.withUnit(speedSpin, tr("KiB/s")))
        fp_accessible_update_label(speedSpin.opaque, tr("Largest speed in KiB/s"))

        keepAwakeSwitch = gtk_switch_new()!
        let keepAwakeRow = PreferencesRows.row(tr("Keep the computer awake while downloading"),
                                               subtitle: tr("It does not suspend while a download runs"),
                                               control: keepAwakeSwitch)

        capSwitch = gtk_switch_new()!
        let capRow = PreferencesRows.row(tr("Limit the library’s size"),
                                         subtitle: tr("Past the limit, the videos played longest ago are removed"),
                                         control: capSwitch)
        capSpin = PreferencesRows.spinButton(0.1...99_999, step: 1, digits: 1, widthChars: 7)
        capSizeRow = PreferencesRows.row(tr("Largest size"), subtitle: nil,
                                         control: PreferencesRows.withUnit(capSpin, tr("GB")))
        fp_accessible_update_label(capSpin.opaque, tr("Largest size of the library in GB"))

        messageLabel = Widgets.label("", classes: ["error"], wrap: true)
        gtk_label_set_xalign(messageLabel.opaque, 0)
        gtk_label_set_justify(messageLabel.opaque, GTK_JUSTIFY_LEFT)
        messageGroup = adw_preferences_group_new()!
        adw_preferences_group_add(messageGroup.as(AdwPreferencesGroup.self), messageLabel)
        gtk_widget_set_visible(messageGroup, 0)

        let page = adw_preferences_page_new()!
        proxyRows = ProxyRows(preferences: preferences)
        siteRows = SiteSupportRows(preferences: preferences, environment: siteSupportEnvironment)
        for group in [
            messageGroup,
            PreferencesRows.group(tr("Downloads"), [folderRow, maxRunningRow, connectionsRow, speedRow, speedLimitRow,
                                                 keepAwakeRow]),
            PreferencesRows.group(tr("Library"), [capRow, capSizeRow]),
            proxyRows.group,
            siteRows.group,
        ] {
            adw_preferences_page_add(page.as(AdwPreferencesPage.self), group.as(AdwPreferencesGroup.self))
        }
        adw_preferences_window_add(widget.as(AdwPreferencesWindow.self), page.as(AdwPreferencesPage.self))

        // Ctrl+W closes it too (AdwPreferencesWindow closes on Escape itself).
        let keys = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_add_shortcut(keys.opaque, gtk_shortcut_new(gtk_shortcut_trigger_parse_string("<Control>w"),
                                                                           gtk_named_action_new("window.close")))
        gtk_widget_add_controller(widget, keys.opaque)

        // GTK keeps the parent without a reference; this window outlives it in Swift's hands,
        // so it lets go of the parent when it closes (also when the parent closes it).
        widget.connect("unrealize") { [weak self] in
            guard let self else { return }
            gtk_window_set_transient_for(self.widget.as(GtkWindow.self), nil)
        }.store(in: &connections)
        refresh()
        connectControls()
        preferences.observe { [weak self] _ in self?.refresh() }
        owned = OwnedWidget.keep(
            folderRow, folderButton, maxRunningSpin, connectionsSpin, speedSwitch, speedSpin, capSwitch, capSpin,
            keepAwakeSwitch, messageLabel, messageGroup, speedLimitRow, capSizeRow
        )
    }

    public func present() { gtk_window_present(widget.as(GtkWindow.self)) }

    /// Whether the folder chooser shows now.
    public var isChoosingFolder: Bool { chooser != nil }

    /// The message under the header, when one shows.
    public var message: String? {
        gtk_widget_get_visible(messageGroup) != 0 ? String(cString: gtk_label_get_text(messageLabel.opaque)) : nil
    }

    /// The folder in use as the folder row shows it.
    var folderText: String {
        adw_action_row_get_subtitle(folderRow.as(AdwActionRow.self)).map { String(cString: $0) } ?? ""
    }

    /// Puts the settings (and the folder in use) into the controls.
    func refresh() {
        refreshing = true
        defer { refreshing = false }
        let settings = preferences.settings
        PreferencesRows.setSubtitle(folderRow, Self.displayPath(currentFolder()))
        Widgets.setTooltip(folderRow, currentFolder())
        setSpin(maxRunningSpin, Double(settings.maxRunning))
        setSpin(connectionsSpin, Double(settings.connections))
        // Off, the spin buttons offer the value the switch would turn on.
        setSwitch(speedSwitch, settings.speedLimit != nil)
        setSpin(speedSpin, Double(settings.speedLimit ?? Self.defaultSpeedLimit))
        gtk_widget_set_sensitive(speedLimitRow, settings.speedLimit == nil ? 0 : 1)
        setSwitch(capSwitch, settings.sizeCap != nil)
        setSpin(capSpin, settings.sizeCap.map { Double($0) / Self.bytesPerGB } ?? Self.defaultCapGB)
        gtk_widget_set_sensitive(capSizeRow, settings.sizeCap == nil ? 0 : 1)
        setSwitch(keepAwakeSwitch, settings.keepAwake)
        proxyRows.refresh()
        siteRows.refresh()
        let message = folderMessage ?? preferences.saveError.map {
            String(format: tr("Your preferences could not be saved: %1$@"), $0)
        }
        if let message { Widgets.setText(messageLabel, message) }
        Widgets.setVisible(messageGroup, message != nil)
    }

    /// A folder as people read it: `~/Videos/Fetchplay` for one in the home folder.
    static func displayPath(_ path: String, home: String = String(cString: g_get_home_dir())) -> String {
        guard home.count > 1, path == home || path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    private func setSpin(_ spin: Widget, _ value: Double) {
        if gtk_spin_button_get_value(spin.opaque) != value { gtk_spin_button_set_value(spin.opaque, value) }
    }

    private func setSwitch(_ toggle: Widget, _ on: Bool) {
        if (gtk_switch_get_active(toggle.opaque) != 0) != on { gtk_switch_set_active(toggle.opaque, on ? 1 : 0) }
    }

    private func connectControls() {
        maxRunningSpin.connect("value-changed") { [weak self] in
            self?.changed { settings, window in settings.maxRunning = Int(window.spinValue(window.maxRunningSpin)) }
        }.store(in: &connections)
        connectionsSpin.connect("value-changed") { [weak self] in
            self?.changed { settings, window in settings.connections = Int(window.spinValue(window.connectionsSpin)) }
        }.store(in: &connections)
        speedSwitch.connect("notify::active") { [weak self] (_: UnsafeMutableRawPointer?) in
            self?.changed { settings, window in
                let on = gtk_switch_get_active(window.speedSwitch.opaque) != 0
                settings.speedLimit = on ? Int(window.spinValue(window.speedSpin)) : nil
            }
        }.store(in: &connections)
        speedSpin.connect("value-changed") { [weak self] in
            self?.changed { settings, window in
                if settings.speedLimit != nil { settings.speedLimit = Int(window.spinValue(window.speedSpin)) }
            }
        }.store(in: &connections)
        capSwitch.connect("notify::active") { [weak self] (_: UnsafeMutableRawPointer?) in
            self?.changed { settings, window in
                let on = gtk_switch_get_active(window.capSwitch.opaque) != 0
                settings.sizeCap = on ? Int64((window.spinValue(window.capSpin) * Self.bytesPerGB).rounded()) : nil
            }
        }.store(in: &connections)
        capSpin.connect("value-changed") { [weak self] in
            self?.changed { settings, window in
                if settings.sizeCap != nil {
                    settings.sizeCap = Int64((window.spinValue(window.capSpin) * Self.bytesPerGB).rounded())
                }
            }
        }.store(in: &connections)
        keepAwakeSwitch.connect("notify::active") { [weak self] (_: UnsafeMutableRawPointer?) in
            self?.changed { settings, window in settings.keepAwake = gtk_switch_get_active(window.keepAwakeSwitch.opaque) != 0 }
        }.store(in: &connections)
        folderButton.connect("clicked") { [weak self] in self?.chooseFolder() }.store(in: &connections)
    }

    private func spinValue(_ spin: Widget) -> Double { gtk_spin_button_get_value(spin.opaque) }

    /// A control changed: its value goes into the settings (unless the window itself is putting
    /// the settings into the controls), and the controls then show what was kept.
    private func changed(_ body: (inout AppSettings, PreferencesWindow) -> Void) {
        guard !refreshing else { return }
        preferences.change { body(&$0, self) }
        refresh()
    }

    // MARK: The folder

    /// Opens the folder chooser on the folder in use.
    func chooseFolder() {
        guard chooser == nil,
              let chooser = gtk_file_chooser_native_new(tr("Videos Folder"), widget.as(GtkWindow.self),
                                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                        tr("_Select"), tr("_Cancel")) else { return }
        gtk_native_dialog_set_modal(chooser.as(GtkNativeDialog.self), 1)
        let folder = g_file_new_for_path(currentFolder())
        gtk_file_chooser_set_current_folder(chooser, folder, nil)
        g_object_unref(folder?.rawObject)
        self.chooser = NativeFileChooser(chooser) { [weak self] path in
            self?.chooser = nil
            if let path { self?.useFolder(path) }
        }
    }

    /// Makes `path` the videos folder, if Fetchplay can write there; else says why and keeps
    /// the folder it had.
    func useFolder(_ path: String) {
        var status = stat()
        if stat(path, &status) != 0 || (status.st_mode & S_IFMT) != S_IFDIR {
            folderMessage = String(format: tr("“%1$@” is not a folder. Choose another one."), path)
        } else if access(path, W_OK | X_OK) != 0 {
            folderMessage = String(format: tr("Fetchplay cannot write in “%1$@”. Choose another folder."), path)
        } else {
            folderMessage = nil
            preferences.change { $0.videosFolder = path }
        }
        refresh()
    }
}

import CAdwaita
import CGtk
import FetchCore
import GLibSupport
import Localization

/// The Preferences' network group: which proxy downloads go through — the desktop's setting
/// (GLib's proxy resolver, the default), none, or one given by hand — applied the moment it is
/// valid. The address is an `AdwPasswordEntryRow`: a proxy's URL may hold its password, so it
/// shows as dots (unless the person peeks) and is never logged.
@MainActor
final class ProxyRows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    private var connections: [SignalConnection] = []
    /// The choices, in the combo row's order.
    enum Choice: UInt32, CaseIterable { case desktop, direct, manual }

    let group: Widget
    /// AdwComboRow: which proxy.
    let choiceRow: Widget
    /// AdwPasswordEntryRow: the proxy's address (a GtkEditable).
    let entry: Widget
    private var owned: [OwnedWidget] = []
    private let preferences: Preferences
    /// "By hand" chosen while the address is not (yet) a usable proxy: shown, not saved.
    private var choosingManual = false
    private var refreshing = false

    init(preferences: Preferences) {
        self.preferences = preferences
        let labels = [tr("The desktop’s setting"), tr("None"), tr("This proxy")]
        let choices = labels.withCStringArray { gtk_string_list_new($0) }!
        choiceRow = adw_combo_row_new()!
        adw_preferences_row_set_title(choiceRow.as(AdwPreferencesRow.self), tr("Proxy"))
        adw_action_row_set_subtitle(choiceRow.as(AdwActionRow.self), tr("What downloads go through"))
        adw_combo_row_set_model(choiceRow.as(AdwComboRow.self), choices)
        g_object_unref(choices.rawObject) // the row holds it
        entry = adw_password_entry_row_new()!
        adw_preferences_row_set_title(entry.as(AdwPreferencesRow.self), tr("Address"))
        group = PreferencesRows.group(tr("Network"),
                                      description: tr("http://, https://, socks5:// or socks5h://, with user:password@ if it needs one"),
                                      [choiceRow, entry])
        refresh()
        choiceRow.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in self?.chosen() }.store(in: &connections)
        entry.connect("changed") { [weak self] in self?.typed() }.store(in: &connections)
        owned = OwnedWidget.keep(group, choiceRow, entry)
    }

    /// Puts the setting into the controls.
    func refresh() {
        refreshing = true
        defer { refreshing = false }
        let choice: Choice
        switch preferences.settings.proxy {
        case .desktop, .environment: choice = choosingManual ? .manual : .desktop
        case .direct: choice = choosingManual ? .manual : .direct
        case .manual(let url):
            choice = .manual
            if entryText.isEmpty { gtk_editable_set_text(entry.opaque, url) }
        }
        if adw_combo_row_get_selected(choiceRow.as(AdwComboRow.self)) != choice.rawValue {
            adw_combo_row_set_selected(choiceRow.as(AdwComboRow.self), choice.rawValue)
        }
        gtk_widget_set_sensitive(entry, choice == .manual ? 1 : 0)
    }

    private var entryText: String { String(cString: gtk_editable_get_text(entry.opaque)) }

    private func chosen() {
        guard !refreshing else { return }
        switch Choice(rawValue: adw_combo_row_get_selected(choiceRow.as(AdwComboRow.self))) ?? .desktop {
        case .desktop: save(.desktop)
        case .direct: save(.direct)
        case .manual:
            choosingManual = true
            typed()
        }
        refresh()
    }

    /// The address applies once it is a proxy Fetchplay can use; until then it shows as wrong.
    private func typed() {
        guard !refreshing else { return }
        guard let proxy = try? ProxySetting.manual(checking: entryText) else {
            if !entryText.isEmpty { gtk_widget_add_css_class(entry, "error") }
            return
        }
        gtk_widget_remove_css_class(entry, "error")
        save(proxy)
    }

    private func save(_ proxy: ProxySetting) {
        if case .manual = proxy {} else { choosingManual = false }
        preferences.change { $0.proxy = proxy }
    }
}

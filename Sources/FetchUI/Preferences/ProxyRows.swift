import CGtk
import FetchCore
import GLibSupport
import Localization

/// The Preferences' network group: which proxy downloads go through — the desktop's setting
/// (GLib's proxy resolver, the default), none, or one given by hand — applied the moment it is
/// valid. The address is a password entry: a proxy's URL may hold its password.
@MainActor
final class ProxyRows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// The choices, in the drop-down's order.
    enum Choice: UInt32, CaseIterable { case desktop, direct, manual }

    let group: Widget
    let dropDown: Widget
    let entry: Widget
    private let entryRow: Widget
    private let preferences: Preferences
    /// "By hand" chosen while the address is not (yet) a usable proxy: shown, not saved.
    private var choosingManual = false
    private var refreshing = false

    init(preferences: Preferences, lists: inout [Widget]) {
        self.preferences = preferences
        let labels = [tr("The desktop’s setting"), tr("None"), tr("This proxy")]
        var strings: [UnsafePointer<CChar>?] = labels.map { UnsafePointer(strdup($0)) } + [nil]
        dropDown = gtk_drop_down_new_from_strings(&strings)!
        strings.forEach { free(UnsafeMutablePointer(mutating: $0)) }
        fp_accessible_update_label(dropDown.opaque, tr("Proxy"))
        let choiceRow = PreferencesRows.row(tr("Proxy"), subtitle: tr("What downloads go through"), control: dropDown)
        entry = gtk_password_entry_new()!
        gtk_password_entry_set_show_peek_icon(entry.opaque, 1)
        gtk_widget_set_hexpand(entry, 1)
        fp_accessible_update_label(entry.opaque, tr("The proxy’s address"))
        entryRow = PreferencesRows.row(tr("Address"), subtitle: tr("http://, https://, socks5:// or socks5h://, with user:password@ if it needs one"),
                                       control: entry, wide: true)
        group = PreferencesRows.group(tr("Network"), [choiceRow, entryRow], list: &lists)
        refresh()
        dropDown.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in self?.chosen() }
        entry.connect("changed") { [weak self] in self?.typed() }
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
        if gtk_drop_down_get_selected(dropDown.opaque) != choice.rawValue {
            gtk_drop_down_set_selected(dropDown.opaque, choice.rawValue)
        }
        gtk_widget_set_sensitive(entryRow, choice == .manual ? 1 : 0)
    }

    private var entryText: String { String(cString: gtk_editable_get_text(entry.opaque)) }

    private func chosen() {
        guard !refreshing else { return }
        switch Choice(rawValue: gtk_drop_down_get_selected(dropDown.opaque)) ?? .desktop {
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

import CAdwaita
import CGtk
import FetchCore
import FetchViewModel
import GLibSupport
import Localization
import ThreadKit

/// The library pane: a header with the counts, the sort and Open Folder, a search field, the
/// list of videos and partials, and a toast with Undo after a deletion.
///
/// ```
/// box (.library)
/// ├─ header      "Library" · "3 videos · 45 MB" · [sort ▾] · [open folder]
/// ├─ search      GtkSearchEntry (Ctrl+F; typing in the list starts it too)
/// │              (an AdwStatusPage, "No Videos Yet", instead of the list while it is empty)
/// └─ toasts      AdwToastOverlay: "“clip.webm” deleted" [Undo] over
///    └─ scrolled GtkListView over LibraryListModel, rows recycled (placeholder when empty)
/// ```
/// The list view makes widgets only for the rows on screen, however long the library: each
/// `LibraryRow` is bound to the URL that scrolls into it, and its thumbnail is asked for then
/// and withdrawn when it scrolls away. Selecting one row, activating it (Enter, double-click)
/// and a row's button are reported through closures; the window decides what they mean, and
/// puts the list's keys (Delete) on it. Several rows can be selected (Ctrl, Shift) to delete
/// them at once.
@MainActor
public final class LibraryView {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    var connections: [SignalConnection] = []
    /// The pane; the view holds a reference to it.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget
    let list: Widget
    let searchEntry: Widget
    let sortChooser: Widget
    let totalLabel: Widget
    private let emptyStack: Widget
    /// What the pane shows when the library has no video: an AdwStatusPage.
    let emptyPage: Widget
    /// Shows the undo toast over the list.
    let toastOverlay: Widget
    /// The undo toast on screen (or queued); nil once it was dismissed.
    var undoToast: OpaquePointer?
    var undoToastDismissed: SignalConnection?
    /// Called once when the undo toast goes: timed out, closed, or replaced.
    var undoDismissed: (@MainActor () -> Void)?
    let thumbnails = LibraryThumbnails()
    let model = LibraryListModel()

    /// Every row widget the list view made, by its list item; few, whatever the library's size.
    var rowsByItem: [UnsafeMutableRawPointer: LibraryRow] = [:]
    /// The row bound to each URL on screen now.
    var bound: [String: LibraryRow] = [:]
    private var summary = ""
    private let scrolled: Widget
    private var owned: [OwnedWidget] = []
    /// A visibility check waits for the next frame (0: none).
    var visibilityTick: guint = 0
    var visibilityRetries = 0
    /// Set by `focusList(when:)` until the list can take the focus.
    private var focusWanted: (@MainActor () -> Bool)?

    /// What the person did in the list, and what the view learnt, for `observe`.
    enum Event {
        /// One row is selected, by the person or by `select(url:)` (the store's selection, which
        /// then hears what it already holds).
        case selected(url: String)
        /// A row was activated: Enter or a double-click.
        case activated(url: String)
        /// A finished video's duration was probed (the store keeps it).
        case durationProbed(url: String, seconds: Double)
    }
    let events = Observers<Event>()
    /// The observers it added to the parts it owns.
    var observations: [ObserverToken] = []

    /// Calls `body` with every `Event` until the token is dropped.
    func observe(_ body: @escaping @MainActor (Event) -> Void) -> ObserverToken { events.observe(body) }

    public init() {
        let title = Widgets.label(tr("Library"), classes: ["heading"])
        gtk_label_set_xalign(title.opaque, 0)
        totalLabel = Widgets.label("", classes: ["dim-label", "caption", "numeric"])
        gtk_label_set_xalign(totalLabel.opaque, 0)
        gtk_label_set_ellipsize(totalLabel.opaque, PANGO_ELLIPSIZE_END)
        let titles = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, [title, totalLabel])
        gtk_widget_set_hexpand(titles, 1)
        sortChooser = Self.makeSortChooser()
        let openFolder = Widgets.button(nil, icon: "folder-open-symbolic", action: .openFolder,
                                        tooltip: tr("Open the cache folder"), accessibleLabel: tr("Open cache folder"),
                                        classes: ["flat"])
        gtk_widget_set_valign(openFolder, GTK_ALIGN_CENTER)
        let header = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, classes: ["library-header"],
                                 [titles, sortChooser, openFolder])

        searchEntry = gtk_search_entry_new()!
        gtk_widget_add_css_class(searchEntry, "library-search")
        // TRANSLATORS: the placeholder of the library's search field.
        fp_search_entry_set_placeholder(searchEntry, tr("Search videos"))
        fp_accessible_update_label(searchEntry.opaque, tr("Search the library"))
        gtk_widget_set_tooltip_text(searchEntry, tr("Find videos by name (Ctrl+F)"))

        let factory = gtk_signal_list_item_factory_new()!
        list = gtk_list_view_new(model.selection, factory)!
        gtk_widget_add_css_class(list, "library-list")
        gtk_list_view_set_single_click_activate(list.opaque, 0)
        fp_accessible_update_label(list.opaque, tr("Library"))
        scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(scrolled.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scrolled.opaque, list)
        emptyPage = adw_status_page_new()!
        adw_status_page_set_icon_name(emptyPage.opaque, "folder-videos-symbolic")
        // TRANSLATORS: the title of the empty library, above "Downloaded videos appear here."
        adw_status_page_set_title(emptyPage.opaque, tr("No Videos Yet"))
        adw_status_page_set_description(emptyPage.opaque, tr("Downloaded videos appear here."))
        // The pane is a sidebar: the small icon and title of GNOME's compact status pages.
        gtk_widget_add_css_class(emptyPage, "compact")
        gtk_widget_add_css_class(emptyPage, "library-empty")
        emptyStack = gtk_stack_new()!
        gtk_stack_add_named(emptyStack.opaque, scrolled, "list")
        gtk_stack_add_named(emptyStack.opaque, emptyPage, "empty")
        gtk_stack_set_visible_child_name(emptyStack.opaque, "empty")
        gtk_widget_set_vexpand(emptyStack, 1)

        toastOverlay = adw_toast_overlay_new()!
        adw_toast_overlay_set_child(toastOverlay.opaque, emptyStack)
        gtk_widget_set_vexpand(toastOverlay, 1)

        widget = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, classes: ["library"],
                             [header, searchEntry, toastOverlay])
        ownedWidget = OwnedWidget(widget)

        connectFactory(factory)
        connectListSignals()
        // Typing while the list has the focus starts a search, as in GNOME's file lists.
        gtk_search_entry_set_key_capture_widget(searchEntry.opaque, list)
        searchEntry.connect("search-changed") { [weak self] in self?.searchChanged() }.store(in: &connections)
        list.connect("map") { [weak self] in self?.focusListIfWanted() }.store(in: &connections)
        sortChooser.connect("notify::selected") { [weak self] (_: UnsafeMutableRawPointer?) in self?.sortChanged() }.store(in: &connections)
        thumbnails.observeLoaded { [weak self] path, duration in
            self?.thumbnailLoaded(path: path, duration: duration)
        }.store(in: &observations)
        // GTK 4.8's list view keeps up to 200 rows bound around the view; thumbnails follow
        // what is really on screen as it scrolls and resizes.
        let adjustment = gtk_scrolled_window_get_vadjustment(scrolled.opaque)!
        adjustment.connect("value-changed") { [weak self] in self?.checkVisibleSoon() }.store(in: &connections)
        adjustment.connect("changed") { [weak self] in self?.checkVisibleSoon() }.store(in: &connections)
        owned = OwnedWidget.keep(
            list, searchEntry, sortChooser, totalLabel, emptyStack, emptyPage, toastOverlay, scrolled
        )
    }

    private static func makeSortChooser() -> Widget {
        // In `LibraryListModel.Sort`'s order.
        let names = [tr("Newest first"), tr("By name"), tr("Largest first")]
        let chooser = names.withCStringArray { gtk_drop_down_new_from_strings($0) }!
        gtk_widget_set_valign(chooser, GTK_ALIGN_CENTER)
        gtk_widget_set_tooltip_text(chooser, tr("Sort the library"))
        fp_accessible_update_label(chooser.opaque, tr("Sort the library"))
        return chooser
    }

    // MARK: What it shows

    /// The URL of the one selected row; nil when none, or several, are selected.
    public var selectedURL: String? {
        let selected = model.selectedURLs
        return selected.count == 1 ? selected[0] : nil
    }

    /// The selected rows' URLs, top to bottom.
    public var selectedURLs: [String] { model.selectedURLs }

    /// Every row's URL in the library's order (newest first), shown or not.
    public var urls: [String] { model.order }

    /// Whether `url` has a row (shown or filtered out).
    func contains(url: String) -> Bool { model.models[url] != nil }

    /// The URLs shown now, top to bottom (after the search and the sort).
    public var shownURLs: [String] { model.shownURLs }

    /// The row on screen for `url`; nil when it is not in the library or not on screen.
    func row(url: String) -> LibraryRow? {
        guard model.models[url] != nil, let row = bound[url], row.url == url else { return nil }
        return row
    }

    /// Rows bound to a URL now: about a screenful, whatever the library's size.
    public var boundRowCount: Int { bound.count }

    /// The URLs rows are bound to now (tests).
    var boundURLs: Set<String> { Set(rowsByItem.values.map(\.url).filter { !$0.isEmpty }) }

    /// Thumbnails waiting or being made.
    public var pendingThumbnails: Int { thumbnails.pending }

    /// Shows `models` in their order; rows that stay keep their widgets and the selection.
    func update(_ models: [LibraryRowModel], total: String) {
        summary = total
        let changed = model.set(models)
        for url in changed { if let row = bound[url], let model = model.models[url] { show(model, in: row) } }
        gtk_stack_set_visible_child_name(emptyStack.opaque, models.isEmpty ? "empty" : "list")
        updateTotal()
        focusListIfWanted()
    }

    private func updateTotal() {
        var text = summary
        if !model.search.isEmpty {
            let shown = model.shownCount, all = model.order.count
            // TRANSLATORS: the library while searching: "3 of 5000 shown", then the usual summary.
            text = String(format: trn("%1$d of %2$d shown", "%1$d of %2$d shown", all), shown, all) + " · " + summary
        }
        Widgets.setText(totalLabel, text)
    }

    /// Selects `url`'s row alone (nil: none). A selection of several rows made by the person
    /// stays while it holds `url`.
    func select(url: String?) {
        let selected = model.selectedURLs
        if let url, selected.contains(url), selected.count > 1 { return }
        guard selected != (url.map { [$0] } ?? []) else { return }
        let selection = model.selection
        if let url, let position = model.position(of: url) {
            gtk_selection_model_select_item(selection, guint(position), 1)
        } else {
            gtk_selection_model_unselect_all(selection)
        }
    }

    /// Selects `url`'s row alone as a click would, reporting it (tests).
    func choose(url: String) {
        guard let position = model.position(of: url) else { return }
        gtk_selection_model_select_item(model.selection, guint(position), 1)
    }

    /// Whether the empty library's status page shows instead of the list.
    public var isEmptyPageVisible: Bool {
        gtk_stack_get_visible_child(emptyStack.opaque) == emptyPage
    }


    /// Gives the list the keyboard focus as soon as it shows rows on screen, if `stillWanted`
    /// holds then (the person may have typed a link meanwhile).
    func focusList(when stillWanted: @escaping @MainActor () -> Bool) {
        focusWanted = stillWanted
        focusListIfWanted()
    }

    private func focusListIfWanted() {
        // Rows may come before the window maps (the first batch is quick); "map" calls again.
        guard let wanted = focusWanted, model.shownCount > 0, gtk_widget_get_mapped(list) != 0 else { return }
        focusWanted = nil
        if wanted() { gtk_widget_grab_focus(list) }
    }

    /// Puts the keyboard focus in the search field, its text selected (Ctrl+F).
    func focusSearch() {
        gtk_widget_grab_focus(searchEntry)
    }

    /// The search field's text.
    var searchText: String {
        String(cString: gtk_editable_get_text(searchEntry.opaque))
    }

    private func searchChanged() {
        model.setSearch(searchText)
        updateTotal()
        scrollToTop()
    }

    private func sortChanged() {
        let index = Int(gtk_drop_down_get_selected(sortChooser.opaque))
        model.setSort(LibraryListModel.Sort(rawValue: index) ?? .date)
        scrollToTop()
    }

    /// A new order or search starts at its first row (the list view would otherwise keep the
    /// row that was on top, wherever the new order put it).
    private func scrollToTop() {
        guard model.shownCount > 0 else { return }
        gtk_widget_activate_action_variant(list, "list.scroll-to-item", g_variant_new_uint32(0))
    }
}

import CGtk
import FetchCore
import GLibSupport
import Localization

/// The library pane: a header with the total size and Open Folder, the list of videos and
/// partials, and an undo bar after a deletion.
///
/// ```
/// box (.library)
/// ├─ header      "Library" · "3 videos · 45 MB" · [open folder]
/// ├─ scrolled    GtkListBox of LibraryRow (placeholder when empty)
/// └─ revealer    undo bar: "“clip.webm” deleted" [Undo]
/// ```
/// Selecting a row, activating it (Enter, double-click) and a row's button are reported through
/// closures; the window decides what they mean, and puts the list's keys (Delete) on it.
@MainActor
public final class LibraryView {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// The pane; the view holds a reference to it.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget
    let list: Widget
    let totalLabel: Widget
    let undoRevealer: Widget
    let undoLabel: Widget
    let thumbnails = LibraryThumbnails()

    private(set) var rows: [String: LibraryRow] = [:]
    private(set) var order: [String] = []
    /// Set while the list is rebuilt, so re-selecting the same row is not reported as a choice.
    private var rebuilding = false

    var onSelect: (@MainActor (String) -> Void)?
    var onActivate: (@MainActor (String) -> Void)?
    var onToggle: (@MainActor (String) -> Void)?
    /// A row's menu command was chosen.
    var onCommand: (@MainActor (LibraryRow.Command, String) -> Void)?
    /// A finished video's duration was probed (the store keeps it).
    var onDuration: (@MainActor (String, Double) -> Void)?

    public init() {
        let title = Widgets.label(tr("Library"), classes: ["heading"])
        gtk_label_set_xalign(title.opaque, 0)
        totalLabel = Widgets.label("", classes: ["dim-label", "caption", "numeric"])
        gtk_label_set_xalign(totalLabel.opaque, 0)
        let titles = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, [title, totalLabel])
        gtk_widget_set_hexpand(titles, 1)
        let openFolder = Widgets.button(nil, icon: "folder-open-symbolic", action: .openFolder,
                                        tooltip: tr("Open the cache folder"), accessibleLabel: tr("Open cache folder"),
                                        classes: ["flat"])
        gtk_widget_set_valign(openFolder, GTK_ALIGN_CENTER)
        let header = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, classes: ["library-header"],
                                 [titles, openFolder])

        list = gtk_list_box_new()!
        gtk_widget_add_css_class(list, "library-list")
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_SINGLE)
        gtk_list_box_set_activate_on_single_click(list.opaque, 0)
        fp_accessible_update_label(list.opaque, tr("Library"))
        let empty = Widgets.label(tr("Downloaded videos appear here."), classes: ["dim-label"], wrap: true)
        gtk_widget_add_css_class(empty, "library-empty")
        gtk_list_box_set_placeholder(list.opaque, empty)
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(scrolled.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scrolled.opaque, list)
        gtk_widget_set_vexpand(scrolled, 1)

        undoLabel = Widgets.label("")
        gtk_label_set_ellipsize(undoLabel.opaque, PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_set_hexpand(undoLabel, 1)
        gtk_label_set_xalign(undoLabel.opaque, 0)
        let undo = Widgets.button(tr("_Undo"), action: .undo, tooltip: tr("Bring the video back (Ctrl+Z)"),
                                  accessibleLabel: tr("Undo delete"))
        let bar = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, classes: ["undo-bar"], [undoLabel, undo])
        undoRevealer = gtk_revealer_new()!
        gtk_revealer_set_transition_type(undoRevealer.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP)
        gtk_revealer_set_child(undoRevealer.opaque, bar)

        widget = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, classes: ["library"],
                             [header, scrolled, undoRevealer])
        ownedWidget = OwnedWidget(widget)

        connectListSignals()
        thumbnails.onLoaded = { [weak self] path, duration in self?.thumbnailLoaded(path: path, duration: duration) }
    }

    /// The URL of the selected row.
    public var selectedURL: String? {
        guard let row = gtk_list_box_get_selected_row(list.opaque) else { return nil }
        return url(of: UnsafeMutableRawPointer(row))
    }

    /// The rows' URLs, top to bottom.
    public var urls: [String] { order }

    func row(url: String) -> LibraryRow? { rows[url] }

    /// Shows `models` in their order, reusing rows by URL; the selection stays on its URL.
    func update(_ models: [LibraryRowModel], total: String) {
        Widgets.setText(totalLabel, total)
        let urls = models.map(\.url)
        if urls != order {
            let selected = selectedURL
            rebuilding = true
            for url in Set(order).subtracting(urls) {
                gtk_list_box_remove(list.opaque, rows[url]!.row)
                rows[url] = nil
            }
            // Rows that stay are moved only when out of place, and new rows are inserted where they
            // belong: a row taken out and put back has no size until the next layout, loses the
            // keyboard focus and drops a click that arrives in between.
            for (index, model) in models.enumerated() {
                let row: LibraryRow
                if let existing = rows[model.url] {
                    row = existing
                    let current = gtk_list_box_get_row_at_index(list.opaque, Int32(index))
                    if current.map({ UnsafeMutableRawPointer($0) }) == UnsafeMutableRawPointer(row.row) { continue }
                    gtk_list_box_remove(list.opaque, row.row)
                } else {
                    row = makeRow(model.url)
                }
                gtk_list_box_insert(list.opaque, row.row, Int32(index))
            }
            order = urls
            if let selected, let row = rows[selected] { gtk_list_box_select_row(list.opaque, row.row.as(GtkListBoxRow.self)) }
            rebuilding = false
        }
        for model in models {
            rows[model.url]?.update(model)
            if let path = model.videoPath {
                if let texture = thumbnails.texture(for: path) { rows[model.url]?.setThumbnail(texture) }
                thumbnails.request(path: path, probeDuration: !model.hasDuration)
            }
        }
    }

    /// Selects `url`'s row (nil: none) without reporting it back.
    func select(url: String?) {
        guard url != selectedURL else { return }
        rebuilding = true
        if let url, let row = rows[url] {
            gtk_list_box_select_row(list.opaque, row.row.as(GtkListBoxRow.self))
        } else {
            gtk_list_box_unselect_all(list.opaque)
        }
        rebuilding = false
    }

    /// Shows the undo bar with `message`; nil hides it.
    func showUndo(_ message: String?) {
        if let message { Widgets.setText(undoLabel, message) }
        gtk_revealer_set_reveal_child(undoRevealer.opaque, message == nil ? 0 : 1)
    }

    public var isUndoVisible: Bool { gtk_revealer_get_reveal_child(undoRevealer.opaque) != 0 }

    private func makeRow(_ url: String) -> LibraryRow {
        let row = LibraryRow(url: url)
        row.onToggle = { [weak self] url in self?.onToggle?(url) }
        row.onCommand = { [weak self] command, url in self?.onCommand?(command, url) }
        rows[url] = row
        return row
    }

    private func url(of row: UnsafeMutableRawPointer) -> String? {
        rows.first { UnsafeMutableRawPointer($0.value.row) == row }?.key
    }

    private func thumbnailLoaded(path: String, duration: Double?) {
        for row in rows.values where row.model?.videoPath == path {
            if let texture = thumbnails.texture(for: path) { row.setThumbnail(texture) }
            if let duration { onDuration?(row.url, duration) }
        }
    }

    private func connectListSignals() {
        typealias RowHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
                                               UnsafeMutableRawPointer?) -> Void
        let selected: RowHandler = { _, row, data in
            let box = CallbackBox<WeakLibraryView>.from(data)
            nonisolated(unsafe) let row = row
            MainActor.assumeIsolated { box.body.view?.rowSelected(row) }
        }
        let activated: RowHandler = { _, row, data in
            let box = CallbackBox<WeakLibraryView>.from(data)
            nonisolated(unsafe) let row = row
            MainActor.assumeIsolated { box.body.view?.rowActivated(row) }
        }
        list.connect("row-selected", box: CallbackBox(WeakLibraryView(self)),
                     handler: unsafeBitCast(selected, to: GCallback.self))
        list.connect("row-activated", box: CallbackBox(WeakLibraryView(self)),
                     handler: unsafeBitCast(activated, to: GCallback.self))
    }

    private func rowSelected(_ row: UnsafeMutableRawPointer?) {
        guard !rebuilding, let row, let url = url(of: row) else { return }
        onSelect?(url)
    }

    private func rowActivated(_ row: UnsafeMutableRawPointer?) {
        guard let row, let url = url(of: row) else { return }
        onActivate?(url)
    }

    /// Activates `url`'s row as Enter or a double-click would (tests).
    func activateRow(url: String) {
        guard let row = rows[url] else { return }
        gtk_widget_activate(row.row)
    }
}

/// Lets C callbacks reach the view without keeping it alive.
private final class WeakLibraryView {
    weak var view: LibraryView?
    init(_ view: LibraryView) { self.view = view }
}

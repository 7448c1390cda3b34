import CGtk
import FetchViewModel
import GLibSupport
import ThreadKit

/// The rows: made, bound and recycled by the list view's factory; their thumbnails asked for
/// while they are on screen; the list's selection and activation reported as events.
extension LibraryView {
    func show(_ rowModel: LibraryRowModel, in row: LibraryRow) {
        row.update(rowModel)
        guard let path = rowModel.videoPath else { return }
        if let texture = thumbnails.texture(for: path) {
            if !row.hasThumbnail { row.setThumbnail(texture) }
        } else {
            checkVisibleSoon()
        }
    }

    /// Asks for the thumbnails of the rows on screen, and withdraws those of rows that are not,
    /// once the next frame has laid the list out.
    func checkVisibleSoon() {
        guard visibilityTick == 0 else { return }
        let box = CallbackBox(Weak(self))
        visibilityTick = gtk_widget_add_tick_callback(list, { _, _, data in
            let view = CallbackBox<Weak<LibraryView>>.from(data).body.object
            return MainActor.assumeIsolated { view?.checkVisible() ?? false } ? 1 : 0
        }, box.retainedPointer(), releaseBox)
    }

    /// Returns whether to look again at the next frame: rows just bound may have no size yet
    /// (a few frames at most, so an idle window never ticks).
    private func checkVisible() -> Bool {
        // The list view scrolls by placing its rows: their bounds are in the view's own
        // coordinates, and the rows on screen are those between 0 and its height.
        let height = Double(gtk_widget_get_height(list))
        var unsized = false
        for row in rowsByItem.values where !row.url.isEmpty && !row.hasThumbnail {
            guard let rowModel = model.models[row.url], let path = rowModel.videoPath else { continue }
            var bounds = graphene_rect_t()
            guard height > 0, let parent = gtk_widget_get_parent(row.row), gtk_widget_get_height(parent) > 0,
                  gtk_widget_compute_bounds(parent, list, &bounds) != 0 else {
                unsized = true
                continue
            }
            let y = Double(bounds.origin.y)
            if y + Double(bounds.size.height) > 0 && y < height {
                thumbnails.request(path: path, probeDuration: !rowModel.hasDuration)
            } else {
                thumbnails.cancel(path: path)
            }
        }
        visibilityRetries = unsized ? visibilityRetries + 1 : 0
        let again = unsized && visibilityRetries < 10
        if !again { visibilityTick = 0 }
        return again
    }

    private func setUp(item: UnsafeMutableRawPointer) {
        let row = LibraryRow()
        rowsByItem[item] = row
        gtk_list_item_set_child(OpaquePointer(item), row.row)
    }

    private func bind(item: UnsafeMutableRawPointer) {
        guard let row = rowsByItem[item] else { return }
        let url = LibraryListModel.url(of: gtk_list_item_get_item(OpaquePointer(item)))
        row.bind(url: url)
        bound[url] = row
        if let rowModel = model.models[url] { show(rowModel, in: row) }
    }

    private func unbind(item: UnsafeMutableRawPointer) {
        guard let row = rowsByItem[item] else { return }
        if bound[row.url] === row { bound[row.url] = nil }
        if let path = model.models[row.url]?.videoPath { thumbnails.cancel(path: path) }
        row.bind(url: "")
    }

    private func tearDown(item: UnsafeMutableRawPointer) {
        rowsByItem[item] = nil
    }

    func thumbnailLoaded(path: String, duration: Double?) {
        for row in bound.values where row.model?.videoPath == path {
            if let texture = thumbnails.texture(for: path) { row.setThumbnail(texture) }
            if let duration { events.notify(.durationProbed(url: row.url, seconds: duration)) }
        }
    }

    func connectFactory(_ factory: OpaquePointer) {
        // Each handler gets the GtkListItem.
        factory.connect("setup") { [weak self] (item: UnsafeMutableRawPointer?) in item.map { self?.setUp(item: $0) } }.store(in: &connections)
        factory.connect("bind") { [weak self] (item: UnsafeMutableRawPointer?) in item.map { self?.bind(item: $0) } }.store(in: &connections)
        factory.connect("unbind") { [weak self] (item: UnsafeMutableRawPointer?) in item.map { self?.unbind(item: $0) } }.store(in: &connections)
        factory.connect("teardown") { [weak self] (item: UnsafeMutableRawPointer?) in item.map { self?.tearDown(item: $0) } }.store(in: &connections)
    }

    func connectListSignals() {
        typealias PositionHandler = @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void
        typealias RangeHandler = @convention(c) (UnsafeMutableRawPointer?, guint, guint, UnsafeMutableRawPointer?) -> Void
        let activated: PositionHandler = { _, position, data in
            let box = CallbackBox<Weak<LibraryView>>.from(data)
            MainActor.assumeIsolated { box.body.object?.rowActivated(Int(position)) }
        }
        let selected: RangeHandler = { _, _, _, data in
            let box = CallbackBox<Weak<LibraryView>>.from(data)
            MainActor.assumeIsolated { box.body.object?.selectionChanged() }
        }
        list.connection("activate", box: CallbackBox(Weak(self)),
                        handler: unsafeBitCast(activated, to: GCallback.self)).store(in: &connections)
        model.selection.connection("selection-changed", box: CallbackBox(Weak(self)),
                                   handler: unsafeBitCast(selected, to: GCallback.self)).store(in: &connections)
    }

    private func selectionChanged() {
        guard let url = selectedURL else { return }
        events.notify(.selected(url: url))
    }

    private func rowActivated(_ position: Int) {
        guard position < model.shownCount else { return }
        events.notify(.activated(url: model.url(at: position)))
    }

    /// Activates `url`'s row as Enter or a double-click would (tests).
    func activateRow(url: String) {
        guard let position = model.position(of: url) else { return }
        gtk_widget_activate_action_variant(list, "list.activate-item", g_variant_new_uint32(guint(position)))
    }
}

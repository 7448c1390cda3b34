import CGtk
import FetchViewModel
import GLibSupport
import ThreadKit

/// The library's rows as a chain of `GListModel`s, for a `GtkListView` that makes widgets only
/// for the rows on screen:
///
/// ```
/// GtkStringList (URLs, the store's order: newest first)
/// └─ GtkSortListModel   GtkCustomSorter: none (date), name or size
///    └─ GtkFilterListModel   GtkCustomFilter: the search text in the name
///       └─ GtkMultiSelection   what the list view shows and selects
/// ```
/// Items are URLs; what a row shows is `models[url]`, kept here on the Swift side, so a change
/// of one download touches one row and never the list. `setOrder` turns the old order into the
/// new one with a few splices (rows that stay keep their widgets, focus and selection).
@MainActor
final class LibraryListModel {
    enum Sort: Int, CaseIterable {
        case date, name, size
    }

    nonisolated(unsafe) private let strings: OpaquePointer
    nonisolated(unsafe) private let sortModel: OpaquePointer
    nonisolated(unsafe) private let filter: OpaquePointer
    nonisolated(unsafe) private let sorter: OpaquePointer
    /// The model the list view shows (held by the list view once it is made).
    nonisolated(unsafe) let selection: OpaquePointer

    private(set) var order: [String] = []
    private(set) var models: [String: LibraryRowModel] = [:]
    /// Lowercased titles, for the search and the sort by name.
    private var folded: [String: String] = [:]
    private(set) var search = ""
    private(set) var sort = Sort.date

    init() {
        strings = gtk_string_list_new(nil)
        let box = CallbackBox(Weak<LibraryListModel>())
        let match: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { item, data in
            let box = CallbackBox<Weak<LibraryListModel>>.from(data)
            nonisolated(unsafe) let item = item
            return MainActor.assumeIsolated { box.body.object?.matches(LibraryListModel.url(of: item)) ?? true } ? 1 : 0
        }
        let compare: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { a, b, data in
            let box = CallbackBox<Weak<LibraryListModel>>.from(data)
            nonisolated(unsafe) let a = a, b = b
            return MainActor.assumeIsolated {
                box.body.object?.compare(LibraryListModel.url(of: UnsafeMutableRawPointer(mutating: a)),
                                        LibraryListModel.url(of: UnsafeMutableRawPointer(mutating: b))) ?? 0
            }
        }
        sorter = gtk_custom_sorter_new(compare, box.retainedPointer(), { releaseBox($0) })
        filter = gtk_custom_filter_new(match, box.retainedPointer(), { releaseBox($0) })
        // Each constructor takes the reference it is given; one more is kept on each for here.
        g_object_ref(strings.rawObject)
        sortModel = gtk_sort_list_model_new(strings, nil)
        g_object_ref(sortModel.rawObject)
        g_object_ref(filter.rawObject)
        let filtered = gtk_filter_list_model_new(sortModel, filter.as(GtkFilter.self))
        selection = gtk_multi_selection_new(filtered)
        box.body.object = self
    }

    deinit {
        g_object_unref(strings.rawObject)
        g_object_unref(sortModel.rawObject)
        g_object_unref(filter.rawObject)
        g_object_unref(sorter.rawObject)
    }

    nonisolated static func url(of item: UnsafeMutableRawPointer?) -> String {
        guard let item, let text = gtk_string_object_get_string(OpaquePointer(item)) else { return "" }
        return String(cString: text)
    }

    // MARK: Contents

    /// Puts `models` in their order. Returns the URLs whose model changed (their rows redraw).
    func set(_ newModels: [LibraryRowModel]) -> [String] {
        var changed: [String] = []
        var sortKeysChanged = false, titlesChanged = false
        var next: [String: LibraryRowModel] = [:]
        next.reserveCapacity(newModels.count)
        for model in newModels {
            next[model.url] = model
            guard let old = models[model.url] else { continue }
            if old != model { changed.append(model.url) }
            if old.title != model.title { titlesChanged = true }
            if old.bytes != model.bytes { sortKeysChanged = true }
        }
        let urls = newModels.map(\.url)
        models = next
        for model in newModels where folded[model.url] == nil || titlesChanged {
            folded[model.url] = model.title.lowercased()
        }
        if urls != order { setOrder(urls) }
        if folded.count > models.count * 2 { folded = folded.filter { models[$0.key] != nil } }
        if titlesChanged || (sortKeysChanged && sort == .size) {
            if sort != .date { gtk_sorter_changed(sorter.as(GtkSorter.self), GTK_SORTER_CHANGE_DIFFERENT) }
            if !search.isEmpty { gtk_filter_changed(filter.as(GtkFilter.self), GTK_FILTER_CHANGE_DIFFERENT) }
        }
        return changed
    }

    /// Turns the list's URLs into `urls`: a few splices when rows were added or removed in a
    /// few runs (the rows that stay keep their widgets, focus and selection), else the whole
    /// list replaced at once: each splice makes the list view rebind the rows after it, so the
    /// first reading of a big library, whose rows land between those of its first batch in
    /// hundreds of runs, rebound tens of thousands of rows one splice at a time.
    private func setOrder(_ urls: [String]) {
        if let splices = Self.splices(from: order, to: urls, atMost: 8) {
            for splice in splices { self.splice(at: splice.position, removing: splice.removing, inserting: splice.inserting) }
        } else {
            splice(at: 0, removing: order.count, inserting: urls)
        }
        order = urls
    }

    /// One change of the string list: at `position`, `removing` rows go and `inserting` come.
    struct Splice: Equatable, Sendable {
        var position: Int
        var removing: Int
        var inserting: [String]
    }

    /// The splices, in order, that turn `old` into `new` when the rows both hold are in the same
    /// order and it takes at most `limit`; nil otherwise.
    nonisolated static func splices(from old: [String], to new: [String], atMost limit: Int) -> [Splice]? {
        let wanted = Set(new)
        var splices: [Splice] = []
        // Removals, from the end so positions before them hold.
        var current = old
        var index = current.count
        while index > 0 {
            index -= 1
            guard !wanted.contains(current[index]) else { continue }
            var start = index
            while start > 0, !wanted.contains(current[start - 1]) { start -= 1 }
            splices.append(Splice(position: start, removing: index - start + 1, inserting: []))
            guard splices.count <= limit else { return nil }
            current.removeSubrange(start...index)
            index = start
        }
        // Insertions, in runs.
        let kept = Set(current)
        var position = 0, source = 0
        while source < new.count {
            if position < current.count, current[position] == new[source] {
                position += 1
                source += 1
                continue
            }
            var run: [String] = []
            while source < new.count, !kept.contains(new[source]) {
                run.append(new[source])
                source += 1
            }
            guard !run.isEmpty else { return nil } // a kept row out of its place
            splices.append(Splice(position: position, removing: 0, inserting: run))
            guard splices.count <= limit else { return nil }
            current.insert(contentsOf: run, at: position)
            position += run.count
        }
        return current == new ? splices : nil
    }

    private func splice(at position: Int, removing count: Int, inserting urls: [String]) {
        // The whole run at once: one items-changed per splice.
        urls.withCStringArray { gtk_string_list_splice(strings, guint(position), guint(count), $0) }
    }

    // MARK: Search and sort

    /// Shows only the rows whose name contains `text` (any case); empty: every row.
    func setSearch(_ text: String) {
        let folded = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard folded != search else { return }
        let narrower = !search.isEmpty && folded.contains(search)
        let wider = search.contains(folded)
        search = folded
        gtk_filter_changed(filter.as(GtkFilter.self),
                           narrower ? GTK_FILTER_CHANGE_MORE_STRICT : wider ? GTK_FILTER_CHANGE_LESS_STRICT : GTK_FILTER_CHANGE_DIFFERENT)
    }

    func setSort(_ sort: Sort) {
        guard sort != self.sort else { return }
        self.sort = sort
        gtk_sort_list_model_set_sorter(sortModel, sort == .date ? nil : sorter.as(GtkSorter.self))
        if sort != .date { gtk_sorter_changed(sorter.as(GtkSorter.self), GTK_SORTER_CHANGE_DIFFERENT) }
    }

    private func matches(_ url: String) -> Bool {
        search.isEmpty || (folded[url] ?? url.lowercased()).contains(search)
    }

    /// Name: A to Z; size: largest first; ties keep the store's order (newest first).
    private func compare(_ a: String, _ b: String) -> Int32 {
        switch sort {
        case .date:
            return 0
        case .name:
            let left = folded[a] ?? a, right = folded[b] ?? b
            if left != right { return left < right ? -1 : 1 }
        case .size:
            let left = models[a]?.bytes ?? 0, right = models[b]?.bytes ?? 0
            if left != right { return left > right ? -1 : 1 }
        }
        return 0
    }

    // MARK: What shows

    /// Rows shown now (after the search).
    var shownCount: Int { Int(g_list_model_get_n_items(selection)) }

    /// The shown rows' URLs, top to bottom.
    var shownURLs: [String] {
        (0..<shownCount).map { url(at: $0) }
    }

    func url(at position: Int) -> String {
        let item = g_list_model_get_item(selection, guint(position))
        defer { if let item { g_object_unref(item) } }
        return LibraryListModel.url(of: item)
    }

    /// Where `url` shows now; nil when it does not (filtered out, or not in the library).
    func position(of url: String) -> Int? {
        guard models[url] != nil else { return nil }
        for position in 0..<shownCount where self.url(at: position) == url { return position }
        return nil
    }

    /// The selected rows' URLs, top to bottom.
    var selectedURLs: [String] {
        guard let bitset = gtk_selection_model_get_selection(selection) else { return [] }
        defer { gtk_bitset_unref(bitset) }
        var iter = GtkBitsetIter()
        var position: guint = 0
        var urls: [String] = []
        var more = gtk_bitset_iter_init_first(&iter, bitset, &position) != 0
        while more {
            urls.append(url(at: Int(position)))
            more = gtk_bitset_iter_next(&iter, &position) != 0
        }
        return urls
    }
}

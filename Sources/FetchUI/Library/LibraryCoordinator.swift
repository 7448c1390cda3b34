import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// Wires the library to the window: the store (disk), the view (rows), and the download session
/// (the queue and the selected item).
///
/// Selecting a row selects that download, so the big ring shows it; Enter or a double-click plays
/// a finished video (through `win.play`) or pauses / continues a partial; a row's button does the
/// same for its own URL; Delete moves the video to the trash with an undo toast; the deletion
/// becomes final when the toast goes (after `undoSeconds`, or closed). A download that finishes
/// joins the store from its record, one that stops otherwise has the store read the folder again
/// (both apply the size cap).
@MainActor
public final class LibraryCoordinator {
    public let store: LibraryStore
    public let view: LibraryView
    let session: DownloadSession
    /// Its observers of the view, for as long as it lives.
    private var observations: [ObserverToken] = []

    /// Plays the selected video now, or as soon as it can: a row just selected in a window that
    /// has not read its record yet (it is read in the background) plays once it is known.
    var playSelected: (@MainActor () -> Void)?
    /// The video open in the player, if any: never deleted nor evicted.
    var playingPath: (@MainActor () -> String?)?
    /// The window, for what the file manager opens over.
    var parentWindow: (@MainActor () -> UnsafeMutablePointer<GtkWindow>?)?
    /// Says why a command could not run (the window shows it under the entry).
    var showMessage: (@MainActor (String) -> Void)?

    /// Seconds the undo toast stays before the deletion becomes final.
    public static let undoSeconds: UInt32 = 10

    public init(session: DownloadSession, view: LibraryView, settings: LibrarySettings) {
        self.session = session
        self.view = view
        store = LibraryStore(cache: session.cache, settings: settings)
        store.observe { [weak self] in self?.refreshRows() }
        session.observe { [weak self] change in self?.entriesChanged(change) }
        view.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .selected(let url): self.session.select(url: url)
            case .activated(let url): self.activate(url)
            case .durationProbed(let url, let seconds): self.store.setDuration(seconds, url: url)
            }
        }.store(in: &observations)
        view.thumbnails.folder = session.cache.thumbnailsDirectory
        reload()
    }

    /// URLs and paths that must not be deleted or evicted now.
    var busy: Set<String> {
        var busy = session.runningURLs
        if let path = playingPath?() { busy.insert(path) }
        return busy
    }

    /// Reads the cache folder again (and applies the size cap).
    public func reload() { store.reload(protecting: busy) }

    /// The session's entries changed: a finished download is listed from its record; one that
    /// stopped otherwise (or is found finished unseen) is read from disk anew.
    func entriesChanged(_ change: DownloadSession.Change) {
        guard !change.urls.isEmpty else { return }
        for item in change.finished.values { store.reload(adding: item, protecting: busy) }
        let stopped = change.urls.contains { url in
            guard change.finished[url] == nil, let entry = session.entries[url] else { return false }
            return entry.state != .downloading && !entry.isWaiting
                && (store.item(url: url)?.isComplete != entry.state.isCompleted || store.item(url: url) == nil)
        }
        if stopped { reload() }
        refreshRows()
    }

    /// Rows of videos the queue does not know, kept from one refresh to the next.
    private let rowMemo = LibraryRowModel.Memo()

    /// Puts the store and the queue on screen.
    func refreshRows() {
        // While the first reading arrives in batches, rows go in date order; after it, rows on
        // screen keep their place.
        let rows = LibraryRowModel.rows(items: store.items, entries: session.queue.entries,
                                        keeping: store.isLoading ? [] : view.urls, memo: rowMemo)
        view.update(rows, total: LibraryRowModel.summary(rows))
        view.select(url: session.url)
    }

    func activate(_ url: String) {
        session.select(url: url)
        // The store has read every record; the session may not have read this one yet.
        if session.state.isCompleted || store.item(url: url)?.isComplete == true {
            playSelected?()
        } else {
            session.toggle(url: url)
        }
    }

    /// A row's action (its menu or its button): Play, Pause or Continue, Show in Files, Copy
    /// Link, Delete, for that row's URL.
    func perform(_ action: FetchplayAction, url: String) {
        switch action {
        case .playItem:
            session.select(url: url)
            playSelected?()
        case .pauseItem, .continueItem:
            session.toggle(url: url)
        case .showItemInFiles:
            showInFiles(url: url)
        case .copyItemLink:
            if let display = gdk_display_get_default() { gdk_clipboard_set_text(gdk_display_get_clipboard(display), url) }
        case .deleteItem:
            session.select(url: url)
            deleteSelected()
        default:
            break
        }
    }

    /// Shows `url`'s video (or partial) in the file manager, selected; says so when nothing can.
    private func showInFiles(url: String) {
        guard let path = session.entries[url]?.state.completedPath ?? store.item(url: url)?.path else { return }
        let window = parentWindow?()
        let connection = window.flatMap { gtk_window_get_application($0) }
            .flatMap { g_application_get_dbus_connection($0.as(GApplication.self)) }
        ShowInFiles.show(path: path, connection: connection, parent: window) { [weak self] outcome in
            self?.lastShowInFiles = outcome
            if case .failed(let sentence) = outcome { self?.showMessage?(sentence) }
        }
    }

    /// How the last Show in Files went (tests).
    private(set) var lastShowInFiles: ShowInFiles.Outcome?

    /// Records a play (for the size cap).
    func played(path: String) {
        if let item = store.items.first(where: { $0.path == path }) { store.markPlayed(url: item.url) }
    }

    // MARK: Delete and undo

    /// Whether the selected item can be deleted now (or, of several selected, one of them).
    var canDelete: Bool {
        let selected = view.selectedURLs
        if selected.count > 1 { return selected.contains { !busy.contains($0) } }
        guard let url = session.url, view.contains(url: url) else { return false }
        return !busy.contains(url) && !(session.state.completedPath.map(busy.contains) ?? false)
    }

    /// Deletes the selected video or partial, with an undo bar; several selected rows go
    /// together, and one undo brings them all back.
    func deleteSelected() {
        let selected = view.selectedURLs
        if selected.count > 1 { return deleteMany(selected) }
        guard let url = session.url else { return }
        if let path = session.state.completedPath, busy.contains(path) {
            return showMessage?(LibraryError.inUse.message) ?? ()
        }
        guard session.queue.remove(url) else { return showMessage?(LibraryError.inUse.message) ?? () }
        store.delete(urls: [url], busy: busy) { [weak self] deleted, refusal in
            guard let self else { return }
            guard let deletion = deleted.first else {
                self.refreshRows()
                return self.showMessage?((refusal ?? .inUse).message) ?? ()
            }
            if self.session.url == url { self.session.clearSelection() }
            self.showUndoBar(Self.deletedMarkup(deletion.item.displayName))
        }
    }

    /// Deletes `urls` at once; those downloading or playing stay, and the window says so.
    private func deleteMany(_ urls: [String]) {
        let busy = self.busy
        let free = urls.filter { !busy.contains($0) && session.queue.remove($0) }
        store.delete(urls: free, busy: busy) { [weak self] deleted, refusal in
            guard let self else { return }
            if let url = self.session.url, deleted.contains(where: { $0.url == url }) { self.session.clearSelection() }
            if deleted.count < urls.count { self.showMessage?((refusal ?? .inUse).message) }
            guard !deleted.isEmpty else { return self.refreshRows() }
            self.showUndoBar(deleted.count == 1 ? Self.deletedMarkup(deleted[0].item.displayName)
                             : String(format: trn("%1$d video deleted", "%1$d videos deleted", deleted.count), deleted.count))
        }
    }

    /// The toast's words for one deleted video, as markup (a toast's title is markup): the
    /// name came from a server, a page or a file, so it goes in escaped; the translation is
    /// the markup around it.
    private static func deletedMarkup(_ name: String) -> String {
        // TRANSLATORS: the toast after a deletion; %1$@ is the video's name. Pango markup: write & as &amp;.
        String(format: tr("“%1$@” deleted"), Markup.escaped(name))
    }

    /// Shows the undo toast (`markup`: its words); the deletion becomes final when it goes,
    /// `undoSeconds` later or when the person closes it. Undo hides it first, so nothing is final then.
    private func showUndoBar(_ markup: String) {
        let deletions = store.pendingDeletions.map(\.url)
        view.showUndo(markup: markup, seconds: Self.undoSeconds) { [weak self] in
            // Only the deletion this toast offered to undo (a newer one has its own toast).
            guard let self, self.store.pendingDeletions.map(\.url) == deletions else { return }
            self.store.commitPending()
        }
    }

    var canUndo: Bool { store.pendingDeletion != nil }

    /// Brings the last deleted video (or videos) back and selects it (the first of them).
    func undo() {
        guard let url = store.pendingDeletions.first?.url else { return }
        // Taken from the store before the toast goes, so its going commits nothing.
        store.undo { [weak self] failure in
            guard let self else { return }
            if let failure { return self.showMessage?(failure.message) ?? () }
            self.session.select(url: url)
        }
        view.hideUndo()
    }

    /// The window is closing: deletions nobody undid become final. Their files go on the
    /// store's worker; the main thread does not wait (the process's shutdown joins the worker
    /// after its last removal, before the process ends).
    func close() {
        store.commitPending()
    }

    // MARK: The folder

    /// `file:///…` of the cache folder.
    public var folderURI: String {
        guard let uri = g_filename_to_uri(session.cache.root, nil, nil) else { return "file://" + session.cache.root }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// Opens the cache folder in the file manager.
    func openFolder(parent: UnsafeMutablePointer<GtkWindow>) {
        gtk_show_uri(parent, folderURI, guint32(GDK_CURRENT_TIME))
    }
}

extension DownloadState {
    var isCompleted: Bool { completedPath != nil }

    var completedPath: String? {
        if case .completed(let path) = self { path } else { nil }
    }
}

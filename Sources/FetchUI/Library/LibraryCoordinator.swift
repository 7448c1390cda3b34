import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// Wires the library's view (rows) to the store (the downloads, the videos, the selected item).
///
/// Selecting a row selects that download, so the big ring shows it; Enter or a double-click plays
/// a finished video (through `win.play`) or pauses / continues a partial; a row's button does the
/// same for its own URL; Delete moves the video to the trash with an undo toast; the deletion
/// becomes final when the toast goes (after `undoSeconds`, or closed).
@MainActor
public final class LibraryCoordinator {
    public let store: DownloadStore
    public let view: LibraryView
    /// Its observers of the view, for as long as it lives.
    private var observations: [ObserverToken] = []

    /// The window: it plays the selected video (now, or once its record is read), shows why a
    /// command could not run, and is what the file manager opens over.
    weak var host: (any WindowHost)?

    /// Seconds the undo toast stays before the deletion becomes final.
    public static let undoSeconds: UInt32 = 10

    public init(store: DownloadStore, view: LibraryView) {
        self.store = store
        self.view = view
        store.observe { [weak self] change in
            guard let self else { return }
            // Another download selected: only the list's selection follows it.
            if change.videos || !change.urls.isEmpty { self.refreshRows() } else { self.view.select(url: self.store.url) }
        }
        view.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .selected(let url): self.store.select(url: url)
            case .activated(let url): self.activate(url)
            case .durationProbed(let url, let seconds): self.store.setDuration(seconds, url: url)
            }
        }.store(in: &observations)
        view.thumbnails.folder = store.cache.thumbnailsDirectory
        refreshRows()
    }

    /// URLs and paths that must not be deleted or evicted now.
    var busy: Set<String> { store.inUse }

    /// Rows kept from one refresh to the next.
    private let rowMemo = LibraryRowModel.Memo()

    /// Puts the store's videos on screen.
    func refreshRows() {
        // While the first reading arrives in batches, rows go in date order; after it, rows on
        // screen keep their place.
        let rows = LibraryRowModel.rows(videos: store.videos, keeping: store.isLoading ? [] : view.urls, memo: rowMemo)
        view.update(rows, total: LibraryRowModel.summary(rows))
        view.select(url: store.url)
    }

    func activate(_ url: String) {
        store.select(url: url)
        // The library has read every record; the queue may not have read this one yet.
        if store.state.isCompleted || store.item(url: url)?.isComplete == true {
            host?.playSelected()
        } else {
            store.toggle(url: url)
        }
    }

    /// A row's Play: selects the row and plays it.
    func play(url: String) {
        store.select(url: url)
        host?.playSelected()
    }

    /// A row's Copy Link.
    func copyLink(url: String) {
        if let display = gdk_display_get_default() { gdk_clipboard_set_text(gdk_display_get_clipboard(display), url) }
    }

    /// A row's Delete: selects the row and deletes it.
    func delete(url: String) {
        store.select(url: url)
        deleteSelected()
    }

    /// Shows `url`'s video (or partial) in the file manager, selected; says so when nothing can.
    func showInFiles(url: String) {
        guard let path = store.entries[url]?.state.completedPath ?? store.item(url: url)?.path else { return }
        let window = host?.window
        let connection = window.flatMap { gtk_window_get_application($0) }
            .flatMap { g_application_get_dbus_connection($0.as(GApplication.self)) }
        ShowInFiles.show(path: path, connection: connection, parent: window) { [weak self] outcome in
            self?.lastShowInFiles = outcome
            if case .failed(let sentence) = outcome { self?.host?.showMessage(sentence) }
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
        guard let url = store.url, view.contains(url: url) else { return false }
        return !busy.contains(url) && !(store.state.completedPath.map(busy.contains) ?? false)
    }

    /// Deletes the selected video or partial, with an undo bar; several selected rows go
    /// together, and one undo brings them all back.
    func deleteSelected() {
        let selected = view.selectedURLs
        if selected.count > 1 { return deleteMany(selected) }
        guard let url = store.url else { return }
        if let path = store.state.completedPath, busy.contains(path) {
            return host?.showMessage(LibraryError.inUse.message) ?? ()
        }
        guard store.remove(url: url) else { return host?.showMessage(LibraryError.inUse.message) ?? () }
        store.delete(urls: [url]) { [weak self] deleted, refusal in
            guard let self else { return }
            guard let deletion = deleted.first else {
                self.refreshRows()
                return self.host?.showMessage((refusal ?? .inUse).message) ?? ()
            }
            if self.store.url == url { self.store.clearSelection() }
            self.showUndoBar(Self.deletedMarkup(deletion.item.displayName))
        }
    }

    /// Deletes `urls` at once; those downloading or playing stay, and the window says so.
    private func deleteMany(_ urls: [String]) {
        let busy = self.busy
        let free = urls.filter { !busy.contains($0) && store.remove(url: $0) }
        store.delete(urls: free) { [weak self] deleted, refusal in
            guard let self else { return }
            if let url = self.store.url, deleted.contains(where: { $0.url == url }) { self.store.clearSelection() }
            if deleted.count < urls.count { self.host?.showMessage((refusal ?? .inUse).message) }
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
            if let failure { return self.host?.showMessage(failure.message) ?? () }
            self.store.select(url: url)
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
        String.fileURI(forPath: store.cache.root) ?? "file://" + store.cache.root
    }

    /// Opens the cache folder in the file manager.
    func openFolder(parent: UnsafeMutablePointer<GtkWindow>) {
        gtk_show_uri(parent, folderURI, guint32(GDK_CURRENT_TIME))
    }
}

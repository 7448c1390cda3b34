import FetchCore
import Foundation
import GLibSupport
import Locking

/// The library on the main thread: the items as last read, and the commands that change them.
///
/// Reading the folder, eviction, probing results and record writes run on one serial queue off
/// the main thread, in the order asked, and the results come back through `MainContext.post`.
/// Delete and undo are a few renames and run at once, so the row goes (or returns) immediately.
@MainActor
public final class LibraryStore {
    public let library: Library
    public private(set) var items: [LibraryItem] = []
    /// The last deletion, while it can still be undone.
    public private(set) var pendingDeletion: Deletion?
    public var settings: LibrarySettings
    private let observers = Observers<Void>()

    /// Calls `body` after every change of `items`, for the store's lifetime.
    public func observe(_ body: @escaping @MainActor () -> Void) { observers.add(body) }

    private let disk = DispatchQueue(label: "fetchplay.library")
    private var generation = 0

    public init(cache: Cache, settings: LibrarySettings) {
        library = Library(cache: cache)
        self.settings = settings
        // Deletions nobody undid before the last quit or crash go now.
        let library = library
        BackgroundWork.async(on: disk) { library.purgeTrash() }
    }

    public var cache: Cache { library.cache }

    /// Bytes of every video and partial listed.
    public var totalBytes: Int64 { items.reduce(0) { $0 + $1.bytesDone } }

    public func item(url: String) -> LibraryItem? { items.first { $0.url == url } }

    /// Reads the folder again; with a size cap, evicts the least recently played videos first,
    /// never a partial nor anything in `protected` (what plays or downloads).
    public func reload(protecting protected: Set<String> = []) {
        generation += 1
        let generation = generation, library = library, cap = settings.sizeCap
        BackgroundWork.async(on: disk) {
            library.reload()
            if let cap { library.evict(toFit: cap, protected: protected) }
            let items = library.items
            MainContext.post { [weak self] in
                guard let self, generation == self.generation else { return }
                self.items = items
                self.observers.notify(())
            }
        }
    }

    /// Remembers that `url` was played now (for the size cap).
    public func markPlayed(url: String) {
        let library = library
        BackgroundWork.async(on: disk) { try? library.markPlayed(url: url) }
    }

    /// Stores a probed duration, once, and shows it.
    public func setDuration(_ seconds: Double, url: String) {
        if let index = items.firstIndex(where: { $0.url == url }) { items[index].duration = seconds }
        let library = library
        BackgroundWork.async(on: disk) { try? library.setDuration(seconds, url: url) }
        observers.notify(())
    }

    /// Remembers where playback of `url` stopped (nil: from the start next time), in its record.
    public func setPosition(_ seconds: Double?, url: String) {
        guard let index = items.firstIndex(where: { $0.url == url }), items[index].position != seconds else { return }
        items[index].position = seconds
        let library = library
        BackgroundWork.async(on: disk) { try? library.setPosition(seconds, url: url) }
    }

    /// Remembers the choices made while watching `url`, in its record.
    public func setChoices(_ choices: PlaybackChoices, url: String) {
        guard let index = items.firstIndex(where: { $0.url == url }), items[index].choices ?? PlaybackChoices() != choices
        else { return }
        items[index].choices = choices.isEmpty ? nil : choices
        let library = library
        BackgroundWork.async(on: disk) { try? library.setChoices(choices, url: url) }
    }

    /// Moves `url`'s files to the trash (refused while in `busy`); a previous pending deletion is
    /// committed first. The row goes at once.
    public func delete(url: String, busy: Set<String>) throws(LibraryError) -> Deletion {
        commitPending()
        // The disk queue may still be reading: the library's own list must know the item.
        let deletion = try library.delete(url: url, busy: busy)
        pendingDeletion = deletion
        items.removeAll { $0.url == url }
        generation += 1 // a reload in flight would bring the row back
        observers.notify(())
        return deletion
    }

    /// Puts the pending deletion back, byte for byte.
    public func undo() throws(LibraryError) {
        guard let deletion = pendingDeletion else { return }
        pendingDeletion = nil
        try library.undo(deletion)
        items = library.items
        generation += 1
        observers.notify(())
    }

    /// Makes the pending deletion final (the undo bar went away, or the window closes).
    public func commitPending() {
        guard let deletion = pendingDeletion else { return }
        pendingDeletion = nil
        let library = library
        BackgroundWork.async(on: disk) { library.commit(deletion) }
    }

    /// Waits for the disk queue (tests, and the window closing before the process exits).
    public func flush() { disk.sync {} }
}

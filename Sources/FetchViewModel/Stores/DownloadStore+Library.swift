import FetchCore
import Foundation
import GLibSupport
import ThreadKit

/// The store's videos: the items as last read, and the commands that change them.
///
/// Reading the folder, eviction, probing results and record writes run on the store's `disk`
/// worker off the main thread, in the order asked, and the results come back through
/// `MainContext.post`. Delete and undo too: a row goes at once, and the renames (which on a slow
/// or network disk take their time) never hold the window. When the store goes, its worker
/// finishes the writes asked for; the process's shutdown joins it in its `.records` stage.
extension DownloadStore {
    public var pendingDeletion: Deletion? { pendingDeletions.last }

    /// URLs and paths that must not be deleted or evicted now: what downloads, what plays.
    public var inUse: Set<String> {
        var busy = runningURLs
        if let path = host?.playingPath { busy.insert(path) }
        return busy
    }

    public func item(url: String) -> LibraryItem? { positions[url].map { items[$0] } }

    /// Every download and video, one per URL, newest first: the downloads as the queue's events
    /// left them, joined with what the cache kept (`StoredVideo` decides which says what).
    public var videos: [StoredVideo] { StoredVideo.all(items: items, entries: orderedEntries) }

    /// Reads the folder again, or lists `finished` only (a download's end, its record read by the
    /// engine: a finish never reads the folder); with a size cap, evicts the least recently
    /// played videos first, never a partial nor anything `inUse`.
    public func reload(adding finished: LibraryItem? = nil) {
        if let finished {
            // Through the disk worker, so that it joins what a reading in flight brings.
            disk.submit { MainContext.post { [weak self] in
                guard let self else { return }
                self.list([finished])
                self.evictToFit()
            } }
            return
        }
        let protected = inUse
        generation += 1
        let generation = generation, library = library, cap = settings.sizeCap
        // Only the first reading shows its first batch early (a screenful at once); the rest
        // comes in one piece: every batch shown would make the list and its rows again, which
        // for thousands of videos costs more than the reading. Later readings change a row or two.
        let first = items.isEmpty
        isLoading = first
        disk.submit {
            var shownEarly = false
            var items = library.reload(batch: first ? { batch in
                guard !shownEarly else { return }
                shownEarly = true
                let sorted = batch.sorted { $0.isListed(before: $1) }
                MainContext.post { [weak self] in
                    guard let self, generation == self.generation else { return }
                    self.items = sorted
                    self.observers.notify(Change(videos: true))
                }
            } : nil)
            if let cap {
                let gone = Set(library.evict(items, toFit: cap, protected: protected).map(\.url))
                items.removeAll { gone.contains($0.url) }
            }
            MainContext.post { [weak self] in
                guard let self, generation == self.generation else { return }
                self.isLoading = false
                self.items = items
                self.observers.notify(Change(videos: true))
                // The reading's garbage (records, listings) is freed by now.
                if first { FreedMemory.release() }
            }
        }
    }

    /// Lists `added` where they belong (newest first), in place of any item of the same URL.
    ///
    /// Called from the disk worker's jobs through `MainContext.post`: a reading asked before has
    /// shown its items by then, one asked after finds these on disk.
    func list(_ added: [LibraryItem]) {
        if !added.isEmpty {
            let urls = Set(added.map(\.url))
            items = (items.filter { !urls.contains($0.url) } + added).sorted { $0.isListed(before: $1) }
        }
        observers.notify(Change(videos: true))
    }

    /// Under a size cap, removes the least recently played videos (on the disk worker) until the
    /// library fits, never a partial nor anything `inUse`.
    private func evictToFit() {
        guard let cap = settings.sizeCap else { return }
        let items = items, protected = inUse, library = library
        disk.submit {
            let gone = Set(library.evict(items, toFit: cap, protected: protected).map(\.url))
            guard !gone.isEmpty else { return }
            MainContext.post { [weak self] in
                guard let self else { return }
                self.items.removeAll { gone.contains($0.url) }
                self.observers.notify(Change(videos: true))
            }
        }
    }

    /// Remembers that `url` was played now (for the size cap).
    public func markPlayed(url: String) {
        let library = library
        disk.submit { try? library.markPlayed(url: url) }
    }

    /// Stores a probed duration, once, and shows it.
    public func setDuration(_ seconds: Double, url: String) {
        if let index = positions[url] { items[index].duration = seconds }
        let library = library
        disk.submit { try? library.setDuration(seconds, url: url) }
        notifySoon()
    }

    /// One notification for the changes made before the main loop next turns: a screenful of
    /// durations probed together makes the rows once, not once each.
    private func notifySoon() {
        guard !notificationPending else { return }
        notificationPending = true
        MainContext.post { [weak self] in
            guard let self else { return }
            self.notificationPending = false
            self.observers.notify(Change(videos: true))
        }
    }

    /// Remembers where playback of `url` stopped (nil: from the start next time), in its record.
    public func setPosition(_ seconds: Double?, url: String) {
        guard let index = positions[url], items[index].position != seconds else { return }
        items[index].position = seconds
        let library = library
        disk.submit { try? library.setPosition(seconds, url: url) }
    }

    /// Remembers the choices made while watching `url`, in its record.
    public func setChoices(_ choices: PlaybackChoices, url: String) {
        guard let index = positions[url], items[index].choices ?? PlaybackChoices() != choices
        else { return }
        items[index].choices = choices.isEmpty ? nil : choices
        let library = library
        disk.submit { try? library.setChoices(choices, url: url) }
    }

    /// Moves the files of every URL in `urls` to the trash, as one deletion that one undo brings
    /// back; those `inUse` (or that cannot be moved) stay. A previous pending deletion is
    /// committed first. The rows go at once; the renames run on the disk worker, and `done` gets
    /// what was deleted and the first refusal on the main thread, where refused rows are back.
    public func delete(urls: [String], done: @escaping @MainActor (_ deleted: [Deletion], _ refusal: LibraryError?) -> Void) {
        commitPending()
        let busy = inUse
        let asked = Set(urls)
        let removed = items.filter { asked.contains($0.url) }
        items.removeAll { asked.contains($0.url) }
        generation += 1 // a reload in flight would bring the rows back
        observers.notify(Change(videos: true))
        let library = library
        disk.submit {
            var deleted: [Deletion] = []
            var refusal: LibraryError?
            for url in urls {
                do throws(LibraryError) {
                    deleted.append(try library.delete(url: url, busy: busy))
                } catch {
                    refusal = refusal ?? error
                }
            }
            MainContext.post { [weak self] in
                guard let self else { return }
                // A deletion asked for while this one ran has committed nothing of this one yet.
                self.commitPending()
                self.pendingDeletions = deleted
                let gone = Set(deleted.map(\.url))
                self.list(removed.filter { !gone.contains($0.url) })
                done(deleted, refusal)
            }
        }
    }

    /// Puts the pending deletion back, byte for byte (every video of it), on the disk worker; the
    /// rows return and `done` gets the first failure on the main thread.
    public func undo(done: @escaping @MainActor (_ failure: LibraryError?) -> Void) {
        guard !pendingDeletions.isEmpty else { return done(nil) }
        let deletions = pendingDeletions
        pendingDeletions = []
        let library = library
        disk.submit {
            var failure: LibraryError?
            var back: [LibraryItem] = []
            for deletion in deletions {
                do throws(LibraryError) {
                    try library.undo(deletion)
                    back.append(deletion.item)
                } catch { failure = failure ?? error }
            }
            MainContext.post { [weak self] in
                guard let self else { return }
                // Undoing a deletion of many videos reads nothing per video.
                self.list(back)
                done(failure)
            }
        }
    }

    /// Makes the pending deletion final (the undo bar went away, or the window closes).
    public func commitPending() {
        guard !pendingDeletions.isEmpty else { return }
        let deletions = pendingDeletions
        pendingDeletions = []
        // Nothing is left to undo: the window's Undo (Ctrl+Z) turns off.
        observers.notify(Change(videos: true))
        let library = library
        disk.submit { for deletion in deletions { library.commit(deletion) } }
    }

    /// Waits for the disk worker (tests). Quitting does not need it: the shutdown joins the
    /// worker after its last write.
    public func flush() { disk.flush() }
}

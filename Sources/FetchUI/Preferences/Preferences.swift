import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import ThreadKit

/// The settings a person chooses, as the window uses them: read once, changed by the
/// Preferences window, heard by whatever applies them, and written to `settings.ini`.
///
/// A change takes effect at once (observers run before `change` returns); the file is written
/// on a queue of its own, since a save syncs the disk and the main thread never waits on that.
/// Saves in a row keep only the newest settings, so turning a spin button writes the file once
/// per pause rather than once per step.
@MainActor
public final class Preferences {
    public private(set) var settings: AppSettings
    /// Where they are kept; nil: in memory only (a window opened by a test that does not care).
    public let store: SettingsStore?
    /// The last save's failure in words, or nil once a save worked.
    public private(set) var saveError: String?

    private let observers = Observers<AppSettings>()
    /// Writes `settings.ini`; the process's shutdown joins it last (`.settings`).
    private let disk = Worker(name: "fetchplay settings", stage: .settings)
    /// The newest settings not yet written; the disk queue takes them.
    private let unsaved = Locked<AppSettings?>(nil)

    public init(settings: AppSettings = AppSettings(), store: SettingsStore? = nil) {
        self.settings = settings.sanitized
        self.store = store
    }

    /// The settings in `store`, taking over the cache's old `settings.json` the first time.
    public convenience init(store: SettingsStore, migratingFrom cache: Cache?) {
        self.init(settings: store.load(migratingFrom: cache), store: store)
    }

    /// Settings kept only in memory, starting from the cache's old `settings.json` (downloads at
    /// once, size cap): what a window gets when it is given no store.
    public convenience init(legacyOf cache: Cache) {
        let old = LibrarySettings.load(from: cache)
        self.init(settings: AppSettings(maxRunning: old.maxRunning, sizeCap: old.sizeCap))
    }

    /// Calls `body` with the settings after every change, for the object's lifetime.
    public func observe(_ body: @escaping @MainActor (AppSettings) -> Void) { observers.add(body) }

    /// Changes the settings (brought into range), tells the observers, and saves them.
    public func change(_ body: (inout AppSettings) -> Void) {
        var changed = settings
        body(&changed)
        changed = changed.sanitized
        guard changed != settings else { return }
        settings = changed
        observers.notify(changed)
        save(changed)
    }

    /// Waits until every change so far is on disk (tests, and the app before it exits).
    public func flush() { disk.flush() }

    private func save(_ settings: AppSettings) {
        guard let store else { return }
        unsaved.withLock { $0 = settings }
        let unsaved = unsaved
        disk.submitOrRunHere {
            let newest: AppSettings? = unsaved.withLock { pending in
                let newest = pending
                pending = nil
                return newest
            }
            guard let newest else { return } // an earlier block already wrote these
            let failure: String?
            do throws(DownloadError) {
                try store.save(newest)
                failure = nil
            } catch {
                failure = error.message
            }
            MainContext.post { [weak self] in
                guard let self, self.saveError != failure else { return }
                self.saveError = failure
                self.observers.notify(self.settings) // the Preferences window shows it
            }
        }
    }
}

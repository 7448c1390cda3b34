import Foundation
import Localization

/// Reads and writes `AppSettings` in `$XDG_CONFIG_HOME/fetchplay/settings.ini`, a GLib key file:
///
///     [Downloads]
///     max-running=3
///     speed-limit-kib=0
///     keep-awake=true
///
///     [Library]
///     videos-folder=/home/ana/Videos/Fetchplay
///     size-cap-bytes=0
///
///     [Network]
///     proxy=desktop
///
///     [SiteSupport]
///     channel=stable
///
/// A missing file, or a value that is malformed or out of range, means the default for it; keys
/// and comments this version does not know survive a save. The first load with no
/// `settings.ini` takes `maxRunning` and `sizeCap` from the cache's old `settings.json` once and
/// writes them to `settings.ini`, which is read from then on (the JSON file stays for older
/// versions).
public struct SettingsStore: Sendable {
    public let path: String

    enum Key {
        static let downloads = "Downloads", library = "Library", network = "Network", proxy = "proxy"
        static let maxRunning = "max-running", speedLimit = "speed-limit-kib", keepAwake = "keep-awake"
        static let connections = "connections"
        static let videosFolder = "videos-folder", sizeCap = "size-cap-bytes"
        static let siteSupport = "SiteSupport", channel = "channel"
    }

    public init(path: String = SettingsStore.defaultPath()) { self.path = path }

    /// `$XDG_CONFIG_HOME/fetchplay/settings.ini`, else `~/.config/fetchplay/settings.ini`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        BaseFolder.path("XDG_CONFIG_HOME", else: ".config", in: environment) + "/fetchplay/settings.ini"
    }

    /// The stored settings; the first time, those of `cache`'s `settings.json` (saved here).
    public func load(migratingFrom cache: Cache? = nil) -> AppSettings {
        if let data = FileIO.readSmallFile(path) {
            guard let file = KeyFile(data: data) else { return AppSettings() }
            return Self.settings(in: file)
        }
        guard let cache, FileManager.default.fileExists(atPath: cache.root + "/" + LibrarySettings.fileName) else {
            return AppSettings()
        }
        let old = LibrarySettings.load(from: cache)
        let settings = AppSettings(maxRunning: old.maxRunning, sizeCap: old.sizeCap).sanitized
        do { try save(settings) } catch { Log.warning("could not write \(path): \(error.message)") }
        return settings
    }

    /// Writes `settings` (sanitized) atomically, keeping what else the file holds.
    public func save(_ settings: AppSettings) throws(DownloadError) {
        let settings = settings.sanitized
        let file = FileIO.readSmallFile(path).flatMap { KeyFile(data: $0) } ?? KeyFile()
        file.set(Key.downloads, Key.maxRunning, integer: Int64(settings.maxRunning))
        file.setComment(Key.downloads, Key.connections, " The most connections one download opens (1 to 16)")
        file.set(Key.downloads, Key.connections, integer: Int64(settings.connections))
        file.setComment(Key.downloads, Key.speedLimit, " KiB per second for each download; 0: no limit")
        file.set(Key.downloads, Key.speedLimit, integer: Int64(settings.speedLimit ?? 0))
        file.set(Key.downloads, Key.keepAwake, boolean: settings.keepAwake)
        file.setComment(Key.library, Key.videosFolder, " Where finished videos go; empty: the videos folder's Fetchplay")
        file.set(Key.library, Key.videosFolder, string: settings.videosFolder ?? "")
        file.setComment(Key.library, Key.sizeCap, " Bytes the library may hold; 0: no cap")
        file.set(Key.library, Key.sizeCap, integer: settings.sizeCap ?? 0)
        file.setComment(Key.network, Key.proxy, " desktop: the desktop's proxy setting; direct: none; else a proxy's URL")
        file.set(Key.network, Key.proxy, string: settings.proxy.settingsText)
        file.setComment(Key.siteSupport, Key.channel, " stable: yt-dlp's releases; nightly: its nightly builds")
        file.set(Key.siteSupport, Key.channel, string: settings.siteSupportChannel.rawValue)

        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileIO.makePrivateFolder(folder)
        } catch {
            throw .fileSystem(String(format: tr("cannot create the folder %1$@"), folder))
        }
        try FileIO.replaceAtomically(path: path, contents: file.data())
    }

    static func settings(in file: KeyFile) -> AppSettings {
        var settings = AppSettings()
        if let value = file.integer(Key.downloads, Key.maxRunning) {
            settings.maxRunning = Int(clamping: value)
        }
        if let value = file.integer(Key.downloads, Key.connections) { settings.connections = Int(clamping: value) }
        if let value = file.integer(Key.downloads, Key.speedLimit) {
            settings.speedLimit = Int(clamping: value)
        }
        if let value = file.boolean(Key.downloads, Key.keepAwake) { settings.keepAwake = value }
        if let value = file.string(Key.library, Key.videosFolder), !value.isEmpty { settings.videosFolder = value }
        if let value = file.integer(Key.library, Key.sizeCap) { settings.sizeCap = value }
        if let value = file.string(Key.network, Key.proxy) { settings.proxy = ProxySetting(settingsText: value) ?? .desktop }
        if let value = file.string(Key.siteSupport, Key.channel) { settings.siteSupportChannel = SiteSupport.Channel(rawValue: value) ?? .stable }
        return settings.sanitized
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// `settings.ini`: every value survives a save and a load, bad values read as their defaults,
/// the old `settings.json` is taken over once, and the file is never written through a link.
struct SettingsStoreTests {
    let folder: TemporaryDirectory
    let store: SettingsStore

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-settings")
        store = SettingsStore(path: folder.path + "/config/fetchplay/settings.ini")
    }

    func writeINI(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: folder.path + "/config/fetchplay", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.path))
    }

    var iniText: String { (try? String(contentsOfFile: store.path, encoding: .utf8)) ?? "" }

    @Test func defaultsWhenThereIsNoFile() {
        #expect(store.load() == AppSettings(videosFolder: nil, maxRunning: 3, speedLimit: nil, sizeCap: nil, keepAwake: true))
        #expect(!FileManager.default.fileExists(atPath: store.path), "loading writes nothing")
    }

    @Test func everyValueRoundTrips() throws {
        var chosen = AppSettings(videosFolder: "/home/ana/视频/My Clips = [1]; #2", maxRunning: 7,
                                 speedLimit: 512, sizeCap: 8_000_000_000, keepAwake: false)
        chosen.connections = 16
        chosen.siteSupportChannel = .nightly
        try store.save(chosen)
        #expect(store.load() == chosen)
        #expect(iniText.contains("[SiteSupport]") && iniText.contains("channel=nightly"))
        #expect(iniText.contains("[Downloads]") && iniText.contains("max-running=7") && iniText.contains("connections=16"))
        #expect(iniText.contains("speed-limit-kib=512") && iniText.contains("keep-awake=false"))
        // Back to the defaults: "none" values are stored as 0 / empty and read back as nil.
        try store.save(AppSettings())
        #expect(store.load() == AppSettings())
        #expect(iniText.contains("speed-limit-kib=0") && iniText.contains("size-cap-bytes=0"))
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path + "/config/fetchplay")[.posixPermissions] as? Int
        #expect(mode == 0o700, "the settings folder is private")
    }

    @Test func badValuesReadAsDefaultsAndRangesAreKept() throws {
        try writeINI("""
            [Downloads]
            max-running=lots
            speed-limit-kib=-20
            keep-awake=perhaps

            [Library]
            videos-folder=relative/folder
            size-cap-bytes=99999999999999999999999

            [SiteSupport]
            channel=weekly
            """)
        #expect(store.load() == AppSettings())
        try writeINI("[Downloads]\nmax-running=0\n")
        #expect(store.load().maxRunning == 1)
        try writeINI("[Downloads]\nmax-running=500\n")
        #expect(store.load().maxRunning == 10)
        try writeINI("[Downloads]\nconnections=0\n")
        #expect(store.load().connections == 1)
        try writeINI("[Downloads]\nconnections=64\n")
        #expect(store.load().connections == 16)
        try writeINI("[Downloads]\nconnections=many\n")
        #expect(store.load().connections == 8)
        try writeINI("\u{0}\u{1}not a key file at all [")
        #expect(store.load() == AppSettings())
        // Saving over a broken file replaces it with a good one.
        try store.save(AppSettings(maxRunning: 2))
        #expect(store.load() == AppSettings(maxRunning: 2))
    }

    @Test func unknownKeysAndCommentsSurviveASave() throws {
        try writeINI("""
            # written by hand
            [Downloads]
            max-running=4
            future-option=yes

            [Window]
            width=900
            """)
        try store.save(AppSettings(maxRunning: 5, keepAwake: false))
        #expect(store.load() == AppSettings(maxRunning: 5, keepAwake: false))
        #expect(iniText.contains("# written by hand"))
        #expect(iniText.contains("future-option=yes") && iniText.contains("[Window]") && iniText.contains("width=900"))
    }

    @Test func theOldSettingsAreTakenOverOnce() throws {
        let cache = try Cache(root: folder.path + "/cache")
        try LibrarySettings(maxRunning: 2, sizeCap: 1_000_000).save(to: cache)
        #expect(store.load(migratingFrom: cache) == AppSettings(maxRunning: 2, sizeCap: 1_000_000))
        #expect(iniText.contains("max-running=2"), "migrated into settings.ini")
        // From now on settings.ini is what counts.
        try LibrarySettings(maxRunning: 9, sizeCap: nil).save(to: cache)
        #expect(store.load(migratingFrom: cache) == AppSettings(maxRunning: 2, sizeCap: 1_000_000))
        #expect(store.load(migratingFrom: cache).library == LibrarySettings(maxRunning: 2, sizeCap: 1_000_000))
    }

    @Test func aCacheWithoutOldSettingsMigratesNothing() throws {
        let cache = try Cache(root: folder.path + "/cache")
        #expect(store.load(migratingFrom: cache) == AppSettings())
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func aLinkInPlaceOfTheFileIsNeverWrittenThrough() throws {
        let target = folder.file("elsewhere.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createDirectory(atPath: folder.path + "/config/fetchplay", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: target)
        #expect(store.load() == AppSettings(), "a link is not read as the settings")
        try store.save(AppSettings(maxRunning: 4))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
        #expect(store.load() == AppSettings(maxRunning: 4))
    }

    @Test func thePathFollowsXDG() {
        #expect(SettingsStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/conf", "HOME": "/home/a"])
                == "/x/conf/fetchplay/settings.ini")
        #expect(SettingsStore.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/a"])
                == "/home/a/.config/fetchplay/settings.ini")
    }
}

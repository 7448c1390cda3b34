import CAdwaita
import CGtk
@testable import FetchCore
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// The Preferences window with real key presses and clicks under openbox: Ctrl+comma opens it,
/// its controls reach `settings.ini` at once and a new window shows them again, the folder
/// chooser picks where videos go, downloads at once lets a waiting download start, and the
/// computer is kept awake (a session manager's cookie on the tests' bus) while a download runs.
/// Screenshots: `artifacts/ui/preferences{,-dark,-narrow}.png`.
@Suite(.serialized) @MainActor
struct PreferencesWindowTests {
    let server: FaultServer
    let cache: TemporaryDirectory
    let config: TemporaryDirectory
    let store: SettingsStore

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-prefs-cache")
        config = try TemporaryDirectory(prefix: "fetchplay-prefs-config")
        store = SettingsStore(path: config.file("fetchplay/settings.ini"))
    }

    var iniText: String { (try? String(contentsOfFile: store.path, encoding: .utf8)) ?? "" }

    /// A window under openbox whose preferences live in this test's `settings.ini`.
    func window() throws -> MainWindow {
        try RealInput.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
    }

    /// Ctrl+comma, pressed for real; returns the Preferences window once it has the focus.
    func openPreferences(_ window: MainWindow) throws -> PreferencesWindow {
        try RealInput.key("ctrl+comma")
        #expect(runMainLoop(timeout: .seconds(10), until: {
            window.preferencesWindow.map { gtk_window_is_active($0.widget.as(GtkWindow.self)) != 0 } ?? false
        }), "Ctrl+comma did not open Preferences: \(RealInput.describeScreen("preferences-not-open"))")
        let preferences = try #require(window.preferencesWindow)
        runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_width(preferences.maxRunningSpin) > 0 })
        return preferences
    }

    /// The children of a widget, in order.
    func children(_ widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        var result: [UnsafeMutablePointer<GtkWidget>] = []
        var child = gtk_widget_get_first_child(widget)
        while let current = child { result.append(current); child = gtk_widget_get_next_sibling(current) }
        return result
    }

    /// A spin button's "+" (GTK 4.8: its text, then "−", then "+").
    func plusButton(_ spin: UnsafeMutablePointer<GtkWidget>) throws -> UnsafeMutablePointer<GtkWidget> {
        let buttons = children(spin).filter { String(cString: g_type_name(fp_widget_type($0))) == "GtkButton" }
        return try #require(buttons.last, "the spin button has no + button")
    }

    @Test func changesReachTheFileAtOnceAndANewWindowShowsThem() throws {
        let window = try window()
        let preferences = try openPreferences(window)
        #expect(preferences.message == nil)
        #expect(preferences.folderText
                == PreferencesWindow.displayPath(window.currentVideoFolder), "the folder in use shows")

        // Each control, clicked or typed into as a person does.
        try RealInput.click(try plusButton(preferences.maxRunningSpin))
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferences.settings.maxRunning == 4 }))
        #expect(window.store?.queue.maxRunning == 4, "the queue follows at once")
        try RealInput.click(try plusButton(preferences.connectionsSpin))
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferences.settings.connections == 9 }))
        #expect(window.store?.connections.connections == 9, "the next run's ceiling follows at once")
        try RealInput.click(preferences.speedSwitch)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferences.settings.speedLimit == PreferencesWindow.defaultSpeedLimit }))
        let speedText = try #require(children(preferences.speedSpin).first, "the spin button's text")
        try RealInput.click(speedText)
        try RealInput.key("ctrl+a")
        try RealInput.type("2048")
        try RealInput.key("Tab")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferences.settings.speedLimit == 2048 }),
                "typed limit: \(String(describing: window.preferences.settings.speedLimit))")
        #expect(window.store?.speedLimit.bytesPerSecond == Int64(2048 * 1024), "the downloads' limit follows at once")
        try RealInput.click(preferences.keepAwakeSwitch)
        #expect(runMainLoop(timeout: .seconds(5), until: { !window.preferences.settings.keepAwake }))
        try RealInput.click(preferences.capSwitch)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferences.settings.sizeCap == 10_000_000_000 }))
        #expect(window.library?.store.settings.sizeCap == 10_000_000_000, "the library follows at once")

        // On disk without anyone saving, off the main thread.
        #expect(runMainLoop(timeout: .seconds(10), until: {
            let text = iniText
            return text.contains("max-running=4") && text.contains("connections=9") && text.contains("speed-limit-kib=2048")
                && text.contains("keep-awake=false") && text.contains("size-cap-bytes=10000000000")
        }), "settings.ini: \(iniText)")

        // Escape closes it; the settings stay.
        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.preferencesWindow == nil }), "Escape left Preferences open")
        GtkHarness.close(window)

        // Next time (a new window reading the same file) shows them again.
        let again = try GtkHarness.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
        defer { GtkHarness.close(again) }
        #expect(again.store?.queue.maxRunning == 4)
        again.showPreferences()
        let shown = try #require(again.preferencesWindow)
        #expect(gtk_spin_button_get_value(shown.maxRunningSpin.opaque) == 4)
        #expect(gtk_spin_button_get_value(shown.connectionsSpin.opaque) == 9)
        #expect(again.store?.connections.connections == 9)
        #expect(gtk_switch_get_active(shown.speedSwitch.opaque) != 0)
        #expect(gtk_spin_button_get_value(shown.speedSpin.opaque) == 2048)
        #expect(gtk_switch_get_active(shown.keepAwakeSwitch.opaque) == 0)
        #expect(gtk_switch_get_active(shown.capSwitch.opaque) != 0)
        #expect(gtk_spin_button_get_value(shown.capSpin.opaque) == 10)
    }

    @Test func theFolderChooserPicksWhereTheNextVideoGoes() throws {
        let clip = try Clips.webm(seconds: 1, audio: false)
        server.serve("/chosen.webm", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"c\"")
        let chosen = config.file("My Videos")
        try FileManager.default.createDirectory(atPath: chosen, withIntermediateDirectories: true)
        let window = try window()
        defer { GtkHarness.close(window) }
        let preferences = try openPreferences(window)

        try RealInput.click(preferences.folderButton)
        #expect(runMainLoop(timeout: .seconds(10), until: { preferences.isChoosingFolder && !RealInput.isActive(window)
                && gtk_window_is_active(preferences.widget.as(GtkWindow.self)) == 0 }),
                "no folder chooser: \(RealInput.describeScreen("preferences-no-chooser"))")
        runMainLoop(for: .seconds(0.5)) // the chooser's location entry takes keys once it is shown
        try RealInput.key("ctrl+l")
        try RealInput.type(chosen + "/")
        try RealInput.key("Return")
        #expect(runMainLoop(timeout: .seconds(10), until: { !preferences.isChoosingFolder }),
                "the chooser did not close: \(RealInput.describeScreen("preferences-chooser-open"))")
        #expect(window.preferences.settings.videosFolder == chosen)
        #expect(window.currentVideoFolder == chosen)
        #expect(preferences.folderText == PreferencesWindow.displayPath(chosen))
        #expect(runMainLoop(timeout: .seconds(10), until: { iniText.contains("videos-folder=" + chosen) }), "\(iniText)")

        // The next video that finishes lands there.
        window.downloadPage.urlText = server.url("/chosen.webm")
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state == .completed(path: chosen + "/chosen.webm") }), "state: \(String(describing: window.store?.state))")
    }

    @Test func aFileIsNoFolder() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
        defer { GtkHarness.close(window) }
        window.showPreferences()
        let preferences = try #require(window.preferencesWindow)
        let file = config.file("not-a-folder.txt")
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let before = window.currentVideoFolder
        preferences.useFolder(file)
        #expect(preferences.message == "“\(file)” is not a folder. Choose another one.")
        #expect(window.preferences.settings.videosFolder == nil && window.currentVideoFolder == before)
        preferences.useFolder(config.path)
        #expect(preferences.message == nil && window.currentVideoFolder == config.path)
    }

    @Test func moreDownloadsAtOnceLetAWaitingOneStart() throws {
        let body = TestData.bytes(count: 400_000, seed: 9)
        server.serve("/first.webm", body: body, etag: "\"1\"", faults: [.throttle(bytesPerSecond: 40_000)])
        server.serve("/second.webm", body: body, etag: "\"2\"", faults: [.throttle(bytesPerSecond: 40_000)])
        let window = try GtkHarness.window(cacheRoot: cache.path,
                                           preferences: Preferences(settings: AppSettings(maxRunning: 1), store: store))
        defer { GtkHarness.close(window) }
        window.downloadPage.urlText = server.url("/first.webm")
        window.activate(.start)
        window.downloadPage.urlText = server.url("/second.webm")
        window.activate(.start)
        #expect(window.store?.isWaiting == true, "one at a time: the second waits")
        window.showPreferences()
        let preferences = try #require(window.preferencesWindow)
        gtk_spin_button_spin(preferences.maxRunningSpin.opaque, GTK_SPIN_STEP_FORWARD, 1)
        #expect(window.preferences.settings.maxRunning == 2)
        #expect(runMainLoop(timeout: .seconds(5), until: {
            window.store?.isWaiting == false && window.store?.queue.runningURLs.count == 2
        }), "the waiting download did not start")
        #expect(runMainLoop(timeout: .seconds(5), until: { server.requests(to: "/second.webm").count == 1 }))
    }

    @Test(.enabled(if: DesktopPeers.isAvailable, "needs dbus-daemon, gdbus and python3-gi for the session manager"))
    func theComputerStaysAwakeWhileADownloadRuns() throws {
        let peers = try #require(GtkHarness.peers)
        let body = TestData.bytes(count: 300_000, seed: 4)
        server.serve("/awake.webm", body: body, etag: "\"a\"", faults: [.throttle(bytesPerSecond: 150_000)])
        server.serve("/asleep.webm", body: body, etag: "\"b\"", faults: [.throttle(bytesPerSecond: 150_000)])
        let window = try GtkHarness.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
        defer { GtkHarness.close(window) }
        let inhibitor = window.downloadInhibitor
        let before = peers.calls("Inhibit").count
        #expect(!inhibitor.isActive)

        window.downloadPage.urlText = server.url("/awake.webm")
        window.activate(.start)
        // The download takes its slot once the queue has read the cache, off the main thread.
        #expect(runMainLoop(timeout: .seconds(10), until: { inhibitor.isActive && inhibitor.cookie != 0 }),
                "no cookie from the session manager")
        let inhibit = try #require(peers.calls("Inhibit").dropFirst(before).last)
        #expect(inhibit.args.count == 4)
        #expect(inhibit.args.first as? String == AppInfo.id)
        #expect(inhibit.args[2] as? String == "Downloading videos")
        #expect((inhibit.args[3] as? Int) == Int(GTK_APPLICATION_INHIBIT_SUSPEND.rawValue), "suspend: \(inhibit.args)")
        let cookie = inhibitor.cookie
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state.isCompleted == true }))
        #expect(!inhibitor.isActive && inhibitor.cookie == 0, "released when the download ends")
        #expect(runMainLoop(timeout: .seconds(5), until: { peers.calls("Uninhibit").contains { $0.args.first as? Int == Int(cookie) } }), "the session manager was not told")

        // Turned off: a download keeps nothing awake; turned on again mid-download: at once.
        window.preferences.change { $0.keepAwake = false }
        let count = peers.calls("Inhibit").count
        window.downloadPage.urlText = server.url("/asleep.webm")
        window.activate(.start)
        // A new link waits for the cache's read before it runs.
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.state == .downloading }))
        #expect(!inhibitor.isActive)
        window.preferences.change { $0.keepAwake = true }
        #expect(inhibitor.isActive && inhibitor.cookie != 0)
        #expect(peers.calls("Inhibit").count == count + 1)
        #expect(runMainLoop(timeout: .seconds(20), until: { window.store?.state.isCompleted == true }))
        #expect(!inhibitor.isActive)
    }

    /// The proxy is chosen in a combo row and typed in a password row: its address (which may
    /// hold a password) shows as dots, and applies once it is a proxy Fetchplay can use.
    @Test func theProxyAddressIsTypedInAPasswordRow() throws {
        let window = try window()
        defer { GtkHarness.close(window) }
        let preferences = try openPreferences(window)
        let proxy = preferences.proxyRows
        #expect(String(cString: g_type_name(fp_widget_type(proxy.entry))) == "AdwPasswordEntryRow")
        #expect(gtk_widget_get_sensitive(proxy.entry) == 0, "the address is open while the desktop's setting is chosen")
        adw_combo_row_set_selected(proxy.choiceRow.as(AdwComboRow.self), ProxyRows.Choice.manual.rawValue)
        #expect(gtk_widget_get_sensitive(proxy.entry) != 0)
        // The row is at the page's bottom, below the fold: focused as Tab would, then typed into.
        gtk_widget_grab_focus(proxy.entry)
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_focus_child(proxy.entry) != nil }))
        try RealInput.type("http://fetchplay:s3cret@127.0.0.1:3128")
        #expect(runMainLoop(timeout: .seconds(5), until: { preferences.preferences.settings.proxy == .manual("http://fetchplay:s3cret@127.0.0.1:3128") }), "\(preferences.preferences.settings.proxy)")
        // What is on screen is dots, not the password.
        let texts = descendants(proxy.entry).filter { String(cString: g_type_name(fp_widget_type($0))) == "GtkText" }
        let text = try #require(texts.first)
        #expect(gtk_text_get_visibility(text.as(GtkText.self)) == 0, "the address shows in clear")
    }

    /// Every widget under `widget`, depth first.
    func descendants(_ widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        children(widget).flatMap { [$0] + descendants($0) }
    }

    @Test func aFolderInTheHomeReadsFromTilde() {
        #expect(PreferencesWindow.displayPath("/home/ana/Videos/Fetchplay", home: "/home/ana") == "~/Videos/Fetchplay")
        #expect(PreferencesWindow.displayPath("/home/ana", home: "/home/ana") == "~")
        #expect(PreferencesWindow.displayPath("/home/anabel/Videos", home: "/home/ana") == "/home/anabel/Videos")
        #expect(PreferencesWindow.displayPath("/srv/videos", home: "/") == "/srv/videos")
    }

    @Test func screenshotsLightDarkAndNarrow() throws {
        let window = try GtkHarness.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
        defer { GtkHarness.close(window) }
        window.preferences.change { $0.speedLimit = 2048 }
        // As a person's default folder reads (shown only: nothing is made in the home folder).
        let home = String(cString: g_get_home_dir()) + "/Videos/Fetchplay"
        let preferences = PreferencesWindow(application: GtkHarness.app.application, parent: window.widget.as(GtkWindow.self),
                                            preferences: window.preferences, currentFolder: { home })
        defer { gtk_window_destroy(preferences.widget.as(GtkWindow.self)) }
        // The README's pictures show the window at rest, not its header title mid-crossfade.
        fp_set_animations_enabled(0)
        defer { fp_set_animations_enabled(1) }
        preferences.present()
        #expect(preferences.folderText == "~/Videos/Fetchplay")
        let light = try #require(GtkHarness.screenshot(preferences.widget, "preferences"))
        // Dark as the app shows it when the desktop prefers dark: libadwaita's style manager.
        let styles = adw_style_manager_get_default()
        adw_style_manager_set_color_scheme(styles, ADW_COLOR_SCHEME_FORCE_DARK)
        defer { adw_style_manager_set_color_scheme(styles, ADW_COLOR_SCHEME_DEFAULT) }
        #expect(adw_style_manager_get_dark(styles) != 0)
        runMainLoop(for: .seconds(0.3))
        let dark = try #require(GtkHarness.screenshot(preferences.widget, "preferences-dark"))
        // The page's background: light in the one, dark in the other (unless the whole run is
        // dark: scripts/screenshots.sh sets ADW_DEBUG_COLOR_SCHEME=prefer-dark for its dark pass).
        let lightBackground = try #require(light[4, Double(light.height) - 4])
        let darkBackground = try #require(dark[4, Double(dark.height) - 4])
        #expect(darkBackground.red < 0.3, "\(darkBackground)")
        if ProcessInfo.processInfo.environment["ADW_DEBUG_COLOR_SCHEME"] != "prefer-dark" {
            #expect(lightBackground.red > 0.8, "\(lightBackground)")
        }
        adw_style_manager_set_color_scheme(styles, ADW_COLOR_SCHEME_DEFAULT)

        // A phone's width: everything still fits, the texts wrap instead of widening the window.
        gtk_window_set_default_size(preferences.widget.as(GtkWindow.self), 360, 640)
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_width(preferences.widget) <= 380 }),
                "the window stays \(gtk_widget_get_width(preferences.widget)) px wide")
        GtkHarness.screenshot(preferences.widget, "preferences-narrow")
        // What the window holds (without the frame GTK draws around a window it decorates):
        // libadwaita's windows ask for GNOME's phone width, 360 px, and no more.
        var minimum: Int32 = 0, natural: Int32 = 0
        let content = try #require(adw_window_get_content(preferences.widget.as(AdwWindow.self)))
        gtk_widget_measure(content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, nil, nil)
        #expect(minimum <= 360, "Preferences need \(minimum) px")
    }
}

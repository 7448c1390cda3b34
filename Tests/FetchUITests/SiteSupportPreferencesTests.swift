import CAdwaita
import CGtk
@testable import FetchCore
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// The Preferences' site support group: which yt-dlp there is and its version, Install or
/// Update with its steps shown while pip runs off the main thread, a failure in one sentence,
/// and the stable/nightly choice kept in `settings.ini`. Screenshot:
/// `artifacts/ui/preferences-site-support.png`.
@Suite(.serialized) @MainActor
struct SiteSupportPreferencesTests {
    let cache: TemporaryDirectory
    let folder: TemporaryDirectory
    let store: SettingsStore

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-site-prefs-cache")
        folder = try TemporaryDirectory(prefix: "fetchplay-site-prefs")
        store = SettingsStore(path: folder.file("config/fetchplay/settings.ini"))
    }

    /// Preferences whose site support looks in `environment`.
    func open(_ environment: [String: String], _ body: (PreferencesWindow, MainWindow) throws -> Void) throws {
        let window = try GtkHarness.window(cacheRoot: cache.path, preferences: Preferences(store: store, migratingFrom: nil))
        defer { GtkHarness.close(window) }
        let preferences = PreferencesWindow(application: GtkHarness.app.application, parent: window.widget.as(GtkWindow.self),
                                            preferences: window.preferences, currentFolder: { "/tmp" },
                                            siteSupportEnvironment: environment)
        defer { gtk_window_destroy(preferences.widget.as(GtkWindow.self)) }
        preferences.present()
        try body(preferences, window)
    }

    func environment(data: String, path: String? = nil) -> [String: String] {
        var environment = SiteSupportFixture.environment(dataHome: data, pipCache: folder.file("pip"), config: folder.file("config"))
        if let path { environment["PATH"] = path }
        return environment
    }

    func label(_ button: UnsafeMutablePointer<GtkWidget>) -> String {
        String(cString: gtk_button_get_label(button.as(GtkButton.self)))
    }

    @Test func noneInstalledOffersInstallAndTheChannelIsKept() throws {
        try open(environment(data: folder.file("empty"), path: folder.path)) { preferences, window in
            let rows = preferences.siteRows
            #expect(runMainLoop(timeout: .seconds(10), until: { rows.status != nil }))
            #expect(rows.statusText == "Not installed: Fetchplay reads pages by itself")
            #expect(label(rows.button) == "_Install" && gtk_widget_get_sensitive(rows.button) != 0)
            #expect(gtk_widget_get_visible(rows.spinner) == 0)
            adw_combo_row_set_selected(rows.channelRow.as(AdwComboRow.self), 1)
            #expect(window.preferences.settings.siteSupportChannel == .nightly)
            window.preferences.flush()
            #expect(store.load().siteSupportChannel == .nightly)
        }
    }

    @Test func theManagedCopyShowsItsVersionAndOffersUpdate() throws {
        let fixture = try SiteSupportFixture.shared.get()
        try open(environment(data: fixture.dataHome)) { preferences, _ in
            let rows = preferences.siteRows
            #expect(gtk_widget_get_visible(rows.spinner) != 0, "checking: the spinner turns")
            #expect(runMainLoop(timeout: .seconds(20), until: { rows.status != nil }))
            #expect(rows.statusText.hasPrefix("Fetchplay’s own copy, version 20"), "\(rows.statusText)")
            #expect(label(rows.button) == "_Update")
            // Scrolled to the group for the picture.
            gtk_widget_grab_focus(rows.button)
            runMainLoop(for: .seconds(0.5))
            _ = GtkHarness.screenshot(preferences.widget, "preferences-site-support")
        }
    }

    /// pip runs on a thread of its own: the window keeps drawing, the row says the step, and
    /// a failure is one sentence in it; Install is offered again.
    @Test func installShowsItsStepsAndAFailureInOneSentence() throws {
        var environment = environment(data: folder.file("data"))
        environment["PIP_INDEX_URL"] = "http://127.0.0.1:9/simple"
        environment["PIP_RETRIES"] = "0"
        environment["PIP_NO_CACHE_DIR"] = "1"
        try open(environment) { preferences, _ in
            let rows = preferences.siteRows
            #expect(runMainLoop(timeout: .seconds(10), until: { rows.status != nil }))
            #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(rows.button) != 0 }))
            #expect(gtk_widget_activate(rows.button) != 0)
            // GTK clicks an activated button once its press has shown (a quarter second).
            #expect(runMainLoop(timeout: .seconds(5), until: { rows.isInstalling }))
            #expect(gtk_widget_get_sensitive(rows.button) == 0 && gtk_widget_get_visible(rows.spinner) != 0)
            var steps: Set<String> = []
            #expect(runMainLoop(timeout: .seconds(120), until: { steps.insert(rows.statusText); return !rows.isInstalling }))
            #expect(steps.contains { $0.hasPrefix("Making a Python environment in ") }, "\(steps)")
            #expect(steps.contains("Installing yt-dlp with pip…"), "\(steps)")
            #expect(rows.statusText.hasPrefix("pip could not install yt-dlp (No matching distribution found"), "\(rows.statusText)")
            #expect(!rows.statusText.contains("\n"))
            #expect(gtk_widget_has_css_class(rows.statusRow, "error") != 0)
            #expect(label(rows.button) == "_Install" && gtk_widget_get_sensitive(rows.button) != 0)
        }
    }
}

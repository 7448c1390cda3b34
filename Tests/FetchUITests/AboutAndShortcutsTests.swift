import CAdwaita
import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import TestSupport
import Testing
@testable import FetchUI

/// The primary menu, the Keyboard Shortcuts window and About, with real key presses and clicks
/// under openbox: Ctrl+? shows every key of the action table (and nothing else), the menu has
/// GNOME's items, About says the version, the licence and the website the metainfo says.
/// Screenshots: `artifacts/ui/shortcuts.png`, `about.png`, `primary-menu.png`.
@Suite(.serialized) @MainActor
struct AboutAndShortcutsTests {
    let cache: TemporaryDirectory

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-about")
    }

    /// Every widget under `widget`, depth first.
    func descendants(_ widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        var result = [widget]
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            result += descendants(current)
            child = gtk_widget_get_next_sibling(current)
        }
        return result
    }

    func typeName(_ widget: UnsafeMutablePointer<GtkWidget>) -> String { String(cString: g_type_name(fp_widget_type(widget))) }

    /// A string property of a GObject (g_object_get is variadic).
    func string(_ object: UnsafeMutableRawPointer, _ property: String) -> String? {
        var value = GValue()
        g_value_init(&value, GType(16 << 2)) // G_TYPE_STRING
        defer { g_value_unset(&value) }
        g_object_get_property(object.assumingMemoryBound(to: GObject.self), property, &value)
        return g_value_get_string(&value).map { String(cString: $0) }
    }

    /// GTK's open windows of a type, newest last.
    func toplevels(ofType name: String) -> [UnsafeMutablePointer<GtkWidget>] {
        let list = gtk_window_get_toplevels()
        var found: [UnsafeMutablePointer<GtkWidget>] = []
        for index in 0..<g_list_model_get_n_items(list) {
            guard let item = g_list_model_get_item(list, index) else { continue }
            let widget = item.assumingMemoryBound(to: GtkWidget.self)
            if typeName(widget) == name { found.append(widget) }
            g_object_unref(item)
        }
        return found
    }

    @Test func ctrlQuestionShowsEveryKeyOfTheActionTable() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        #expect(GtkHarness.accelerators(.shortcuts) == ["<Control>question"])
        #expect(GtkHarness.accelerators(.preferences) == ["<Control>comma"])
        #expect(toplevels(ofType: "GtkShortcutsWindow").isEmpty)
        try RealInput.key("ctrl+question")
        #expect(runMainLoop(timeout: .seconds(10), until: {
            toplevels(ofType: "GtkShortcutsWindow").contains { gtk_window_is_active($0.as(GtkWindow.self)) != 0 }
        }), "Ctrl+? showed no shortcuts: \(RealInput.describeScreen("shortcuts-not-open"))")
        let shortcuts = try #require(toplevels(ofType: "GtkShortcutsWindow").last)
        GtkHarness.screenshot(shortcuts, "shortcuts")

        // What the window lists, read back from its widgets (its section; the search page
        // holds copies).
        let sections = descendants(shortcuts).filter { typeName($0) == "GtkShortcutsSection" }
        let shown = sections.flatMap(descendants).filter { typeName($0) == "GtkShortcutsShortcut" }.map {
            (title: string(UnsafeMutableRawPointer($0), "title") ?? "", keys: string(UnsafeMutableRawPointer($0), "accelerator") ?? "")
        }
        let withKeys = FetchplayAction.allCases.filter { !$0.row.keys.isEmpty }
        #expect(shown.count == withKeys.count, "\(shown.map(\.title))")
        for action in withKeys {
            let row = action.row
            let line = shown.first { $0.title == row.title }
            #expect(line != nil, "\(action) (\(row.keys)) is missing from the shortcuts window")
            #expect(line?.keys == ShortcutsWindow.shownKeys(row.keys).joined(separator: " "), "\(action): \(line?.keys ?? "")")
        }
        // Grouped by where the keys work, each group titled.
        let groups = sections.flatMap(descendants).filter { typeName($0) == "GtkShortcutsGroup" }
            .compactMap { string(UnsafeMutableRawPointer($0), "title") }
        #expect(groups == ShortcutsWindow.groups.map(\.title))
        #expect(ShortcutsWindow.groups.flatMap(\.entries).map(\.action).sorted { $0.rawValue < $1.rawValue }
                == withKeys.sorted { $0.rawValue < $1.rawValue })

        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { toplevels(ofType: "GtkShortcutsWindow").isEmpty }),
                "Escape left the shortcuts window open")
    }

    @Test func thePrimaryMenuOpensAbout() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let titlebar = window.ui.headerBar
        let menuButton = try #require(descendants(titlebar).first { typeName($0) == "GtkMenuButton" && gtk_widget_get_visible($0) != 0
            && gtk_menu_button_get_menu_model($0.opaque) != nil })
        try RealInput.click(menuButton)
        let popover = try #require(gtk_menu_button_get_popover(menuButton.opaque)).as(GtkWidget.self)
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(popover) != 0 }))
        runMainLoop(for: .seconds(0.3))
        let labels = descendants(popover).filter { typeName($0) == "GtkLabel" && gtk_widget_get_mapped($0) != 0 }
        let texts = labels.compactMap { gtk_label_get_text($0.opaque).map { String(cString: $0) } }.filter { !$0.isEmpty }
        // The items, each with its keys beside it.
        #expect(texts.filter { !$0.hasPrefix("Ctrl+") } == ["Open Video…", "Preferences", "Keyboard Shortcuts",
                                                             "About Fetchplay", "Quit"], "\(texts)")
        #expect(texts.contains("Ctrl+,") && texts.contains("Ctrl+?"), "\(texts)")
        GtkHarness.screenshot(popover, "primary-menu")
        let about = try #require(labels.first { gtk_label_get_text($0.opaque).map { String(cString: $0) } == "About Fetchplay" })
        try RealInput.click(about)
        #expect(runMainLoop(timeout: .seconds(10), until: { !toplevels(ofType: "AdwAboutWindow").isEmpty }),
                "no About: \(RealInput.describeScreen("about-not-open"))")
        let dialog = try #require(toplevels(ofType: "AdwAboutWindow").last)
        GtkHarness.screenshot(dialog, "about")
        #expect(adw_about_window_get_version(dialog.opaque).map { String(cString: $0) } == AppInfo.version)
        #expect(adw_about_window_get_application_name(dialog.opaque).map { String(cString: $0) } == "Fetchplay")
        #expect(adw_about_window_get_developer_name(dialog.opaque).map { String(cString: $0) } == AppInfo.developer)
        #expect(adw_about_window_get_website(dialog.opaque).map { String(cString: $0) } == AppInfo.website)
        #expect(adw_about_window_get_license_type(dialog.opaque) == GTK_LICENSE_GPL_3_0)
        #expect(gtk_window_get_transient_for(dialog.as(GtkWindow.self)) == window.widget.as(GtkWindow.self))
        gtk_window_close(dialog.as(GtkWindow.self))
        #expect(runMainLoop(timeout: .seconds(5), until: { toplevels(ofType: "AdwAboutWindow").isEmpty }))
    }

    /// About tells what the metainfo tells: one licence, one home page, one developer.
    @Test func aboutAndTheMetainfoAgree() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let metainfo = try String(contentsOf: url.appendingPathComponent("data/\(AppInfo.id).metainfo.xml"), encoding: .utf8)
        #expect(metainfo.contains("<project_license>\(AppInfo.license)</project_license>"))
        #expect(metainfo.contains("<url type=\"homepage\">\(AppInfo.website)</url>"))
        #expect(metainfo.contains("<developer_name>\(AppInfo.developer)</developer_name>"))
        #expect(AppInfo.license == "GPL-3.0-or-later" && AboutWindow.licenseType == GTK_LICENSE_GPL_3_0)
    }
}

import CGtk
import FetchViewModel
import Foundation
import GLibSupport
import Localization

/// The Keyboard Shortcuts window (Ctrl+?): GTK's `GtkShortcutsWindow`, made from
/// `FetchplayAction`'s table each time it opens, so every key the app has shows and nothing
/// else does.
///
/// GTK 4.8 adds sections, groups and shortcuts to it only through GtkBuilder (the add functions
/// came in 4.14), so the table becomes a small builder document: one group per `KeyScope` (where
/// the keys work), one shortcut per action with keys, all its keys in one accelerator.
@MainActor
enum ShortcutsWindow {
    /// One line of the window: what the action does and its keys in GTK's syntax.
    struct Entry: Equatable {
        var action: FetchplayAction
        var title: String
        var accelerator: String
    }

    /// The groups in the order they show, each with its shortcuts in the table's order.
    static var groups: [(scope: FetchplayAction.KeyScope, title: String, entries: [Entry])] {
        FetchplayAction.KeyScope.allCases.compactMap { scope in
            let entries = FetchplayAction.allCases.map { ($0, $0.row) }.filter { $1.keyScope == scope && !$1.keys.isEmpty }
                .map { Entry(action: $0, title: $1.title, accelerator: shownKeys($1.keys).joined(separator: " ")) }
            return entries.isEmpty ? nil : (scope, scope.title, entries)
        }
    }

    /// The keys people are told about: the keypad's twins of a key (KP_Delete) go unsaid.
    static func shownKeys(_ keys: [String]) -> [String] {
        let shown = keys.filter { !$0.hasPrefix("KP_") }
        return shown.isEmpty ? keys : shown
    }

    /// The window, transient for `parent`; it destroys itself when closed.
    static func make(parent: UnsafeMutablePointer<GtkWindow>?) -> UnsafeMutablePointer<GtkWidget>? {
        let builder = gtk_builder_new()!
        defer { g_object_unref(builder.rawObject) }
        let object: UnsafeMutablePointer<GObject>
        do throws(GLibError) {
            guard try GLibError.check({ gtk_builder_add_from_string(builder, document, -1, $0) }) != 0,
                  let built = gtk_builder_get_object(builder, "shortcuts") else {
                throw GLibError(domain: 0, code: 0, message: "no window named shortcuts")
            }
            object = built
        } catch {
            Log.warning("the shortcuts window could not be built: \(error.message)")
            return nil
        }
        let window = UnsafeMutableRawPointer(object).assumingMemoryBound(to: GtkWidget.self)
        gtk_window_set_transient_for(window.as(GtkWindow.self), parent)
        gtk_window_set_modal(window.as(GtkWindow.self), 1)
        gtk_window_set_destroy_with_parent(window.as(GtkWindow.self), 1)
        // The builder's reference goes with it; the window itself is kept by GTK's list of
        // toplevels until it is destroyed.
        return window
    }

    /// The builder document for `groups`.
    static var document: String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><interface>"#
        xml += #"<object class="GtkShortcutsWindow" id="shortcuts">"#
        xml += #"<child><object class="GtkShortcutsSection"><property name="section-name">shortcuts</property>"#
        xml += #"<property name="max-height">16</property>"#
        for group in groups {
            xml += #"<child><object class="GtkShortcutsGroup"><property name="title">\#(escaped(group.title))</property>"#
            for entry in group.entries {
                xml += #"<child><object class="GtkShortcutsShortcut">"#
                xml += #"<property name="title">\#(escaped(entry.title))</property>"#
                xml += #"<property name="accelerator">\#(escaped(entry.accelerator))</property>"#
                xml += "</object></child>"
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        return xml
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

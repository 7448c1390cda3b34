import Foundation
import Testing
import TestSupport

/// The template and the Chinese catalogue are complete and agree with the sources.
struct CatalogueTests {
    static let template = Checkout.path("po/fetchplay.pot")

    /// The catalogues listed in po/LINGUAS.
    static let languages: [String] = {
        let text = (try? String(contentsOfFile: Checkout.path("po/LINGUAS"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }()

    @Test func theTemplateIsWhatTheSourcesSay() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-pot")
        let fresh = folder.file("fresh.pot")
        let run = try Command.run(Checkout.path("scripts/translations"), ["pot", fresh])
        try #require(run.status == 0, "scripts/translations pot failed: \(run.standardError)")
        func withoutDate(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("\"POT-Creation-Date:") }.map(String.init)
        }
        let committed = try withoutDate(Self.template), regenerated = try withoutDate(fresh)
        let added = Set(regenerated).subtracting(committed).sorted(), gone = Set(committed).subtracting(regenerated).sorted()
        let same = committed == regenerated
        #expect(same,
                "po/fetchplay.pot is stale; run scripts/translations update and translate. New lines: \(added), gone: \(gone)")
    }

    /// A file that calls tr() but is missing from POTFILES would silently never be translated.
    @Test func potfilesListsEverySourceThatTranslates() throws {
        let listed = try String(contentsOfFile: Checkout.path("po/POTFILES"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        for file in listed {
            #expect(FileManager.default.fileExists(atPath: Checkout.path(file)), "po/POTFILES lists \(file), which does not exist")
        }
        let call = try NSRegularExpression(pattern: #"\btrn?\(""#)
        var translating: [String] = []
        let sources = Checkout.path("Sources")
        for case let relative as String in FileManager.default.enumerator(atPath: sources)! where relative.hasSuffix(".swift") {
            // The module that defines tr() only mentions it in its documentation.
            if relative.hasPrefix("Localization/") { continue }
            let text = try String(contentsOfFile: sources + "/" + relative, encoding: .utf8)
            if call.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                translating.append("Sources/" + relative)
            }
        }
        #expect(Set(translating).subtracting(listed).sorted() == [], "missing from po/POTFILES")
        #expect(Set(listed.filter { $0.hasSuffix(".swift") }).subtracting(translating).sorted() == [],
                "listed in po/POTFILES but translate nothing")
    }

    /// Text handed to a widget as a bare literal never reaches gettext: every label, tooltip,
    /// accessible name, placeholder, menu item and dialog title in FetchUI goes through tr().
    /// Caught by the calls that put text on screen, where a literal must be an empty string.
    @Test func widgetTextGoesThroughGettext() throws {
        let setters = [#"Widgets\.label\("#, #"Widgets\.button\("#, #"Widgets\.setText\([^,]+, "#,
                       #"tooltip: "#, #"accessibleLabel: "#, #"gtk_widget_set_tooltip_text\([^,]+, "#,
                       #"fp_accessible_update_label\([^,]+, "#, #"gtk_entry_set_placeholder_text\([^,]+, "#,
                       #"g_menu_append\([^,]+, "#, #"g_menu_item_new\("#, #"gtk_label_set_text\([^,]+, "#,
                       #"gtk_file_chooser_native_new\("#, #"showBanner\("#, #"showURLMessage\("#,
                       #"gtk_button_set_label\([^,]+, "#,
                       // libadwaita's widgets carry their own text.
                       #"adw_preferences_row_set_title\([^,]+, "#, #"adw_action_row_set_subtitle\([^,]+, "#,
                       #"adw_preferences_group_set_(title|description)\([^,]+, "#,
                       #"adw_status_page_set_(title|description)\([^,]+, "#, #"adw_toast_new\("#,
                       #"adw_toast_set_button_label\([^,]+, "#, #"adw_message_dialog_add_response\([^,]+, [^,]+, "#,
                       #"adw_message_dialog_new\([^,]+, "#, #"adw_window_title_new\("#]
        // A setter followed by a literal with a letter in it, optionally after `cond ? `.
        let bare = try NSRegularExpression(pattern: "(?:" + setters.joined(separator: "|") + #")(?:[^"()]*\? )?"[^"]*\p{L}"#)
        var found: [String] = []
        let folder = Checkout.path("Sources/FetchUI")
        for case let name as String in FileManager.default.enumerator(atPath: folder)! where name.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let text = String(line)
                if bare.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                    found.append("\(name):\(number + 1): \(text.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found == [], "bare text on screen:\n\(found.joined(separator: "\n"))")
    }

    @Test(arguments: languages)
    func everyMessageIsTranslated(_ language: String) throws {
        let path = Checkout.path("po/\(language).po")
        let catalogue = try MessageCatalog(path: path)
        let template = try MessageCatalog(path: Self.template)
        #expect(Set(template.msgids).subtracting(catalogue.msgids).sorted() == [], "not in po/\(language).po")
        #expect(Set(catalogue.msgids).subtracting(template.msgids).sorted() == [], "in po/\(language).po but no longer used")
        for entry in catalogue.entries {
            #expect(!entry.flags.contains("fuzzy"), "fuzzy in po/\(language).po: \(entry.msgid)")
            #expect(!entry.translations.isEmpty && entry.translations.allSatisfy { !$0.isEmpty },
                    "untranslated in po/\(language).po: \(entry.msgid)")
        }
    }

    /// msgfmt --check compares the format specifiers of every translation with the English ones
    /// (objc-format for %1$@, c-format for %ld) and the plural forms with the header.
    @Test(arguments: languages)
    func specifiersAgree(_ language: String) throws {
        let run = try Command.run("/usr/bin/msgfmt", ["--check", "-o", "/dev/null", Checkout.path("po/\(language).po")])
        #expect(run.status == 0 && run.standardError.isEmpty, "msgfmt --check: \(run.standardError)")
    }

    /// The checker itself: a translation that drops or swaps a value fails msgfmt --check.
    @Test func aWrongSpecifierIsCaught() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-po")
        let po = try folder.write(Array("""
            msgid ""
            msgstr "Content-Type: text/plain; charset=UTF-8\\n"

            #, objc-format
            msgid "%1$@ refused the connection"
            msgstr "拒绝了连接"

            """.utf8), to: "bad.po")
        let run = try Command.run("/usr/bin/msgfmt", ["--check", "-o", "/dev/null", po])
        #expect(run.status != 0)
    }
}

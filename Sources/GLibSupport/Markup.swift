import CGLib

/// Text for the few APIs that read Pango markup and have no plain-text mode (libadwaita 1.2's
/// `AdwToast` title; a notification body that reaches `org.freedesktop.Notifications`).
///
/// Names of videos, titles, hosts, URLs and a server's words come from outside: parsed as
/// markup, `Tom & Jerry <1>.mp4` vanishes (a parse error leaves the text empty), `&amp;` shows
/// as `&`, and `<span size="99999">` restyles what the app says. Where an API has a plain-text
/// mode (`gtk_label_set_text`, `use-markup` FALSE on `AdwPreferencesRow`, an
/// `AdwMessageDialog` body without `body-use-markup`, `gtk_widget_set_tooltip_text`), that mode
/// is used instead and nothing is escaped. Where a translation carries an outside name
/// (`“%1$@” deleted`), the name is escaped as it goes in; the translation is the markup.
public enum Markup {
    /// `text` as markup that shows exactly `text` (GLib's `g_markup_escape_text`: `&`, `<`, `>`,
    /// quotes, and control characters as character references).
    public static func escaped(_ text: String) -> String {
        String(glibTaking: g_markup_escape_text(text, -1)) ?? ""
    }
}

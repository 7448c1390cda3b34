import CGtk
import FetchCore
import GLibSupport
import Localization

/// "About Fetchplay": GTK's own `GtkAboutDialog` with the facts of `AppInfo` (version, licence,
/// website, who made it) and the translators of the language shown.
@MainActor
enum AboutDialog {
    /// The dialog, transient for `parent`; it destroys itself when closed.
    static func make(parent: UnsafeMutablePointer<GtkWindow>?) -> UnsafeMutablePointer<GtkWidget> {
        let dialog = gtk_about_dialog_new()!
        let about = dialog.opaque
        gtk_window_set_transient_for(dialog.as(GtkWindow.self), parent)
        gtk_window_set_modal(dialog.as(GtkWindow.self), 1)
        gtk_window_set_destroy_with_parent(dialog.as(GtkWindow.self), 1)
        gtk_about_dialog_set_program_name(about, "Fetchplay")
        gtk_about_dialog_set_logo_icon_name(about, AppInfo.id)
        gtk_about_dialog_set_version(about, AppInfo.version)
        gtk_about_dialog_set_comments(about, tr("Download a video, watch it fill a ring, play it"))
        gtk_about_dialog_set_website(about, AppInfo.website)
        gtk_about_dialog_set_website_label(about, tr("Website"))
        // GTK's GPL 3.0 is "version 3 or (at your option) any later version", the metainfo's
        // GPL-3.0-or-later; GTK shows the licence's name and a link to its text.
        gtk_about_dialog_set_license_type(about, Self.licenseType)
        gtk_about_dialog_set_copyright(about, "© " + AppInfo.developer)
        withStrings([AppInfo.developer]) { gtk_about_dialog_set_authors(about, $0) }
        withStrings(["GTK", "GLib", "GStreamer", "libcurl", "OpenSSL"]) {
            gtk_about_dialog_add_credit_section(about, tr("Made with"), $0)
        }
        // TRANSLATORS: your names, one a line, as they should appear in About; do not translate
        // the words "translator-credits" otherwise.
        let translators = tr("translator-credits")
        if translators != "translator-credits" { gtk_about_dialog_set_translator_credits(about, translators) }
        return dialog
    }

    /// The licence `AppInfo.license` names, in GTK's terms.
    static var licenseType: GtkLicense {
        switch AppInfo.license {
        case "GPL-3.0-or-later": GTK_LICENSE_GPL_3_0
        case "GPL-3.0-only": GTK_LICENSE_GPL_3_0_ONLY
        default: GTK_LICENSE_CUSTOM
        }
    }

    /// Calls `body` with `strings` as a NULL-terminated C array that lives for the call.
    private static func withStrings(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Void) {
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { pointers.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}

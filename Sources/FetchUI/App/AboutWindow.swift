import CAdwaita
import CGtk
import FetchCore
import GLibSupport
import Localization

/// "About Fetchplay": libadwaita's `AdwAboutWindow` with the facts of `AppInfo` (version,
/// licence, website, who made it) and the translators of the language shown.
@MainActor
enum AboutWindow {
    /// The window, transient for `parent`; it destroys itself when closed.
    static func make(parent: UnsafeMutablePointer<GtkWindow>?) -> UnsafeMutablePointer<GtkWidget> {
        let window = adw_about_window_new()!
        let about = window.opaque
        gtk_window_set_transient_for(window.as(GtkWindow.self), parent)
        gtk_window_set_modal(window.as(GtkWindow.self), 1)
        gtk_window_set_destroy_with_parent(window.as(GtkWindow.self), 1)
        adw_about_window_set_application_name(about, "Fetchplay")
        adw_about_window_set_application_icon(about, AppInfo.id)
        adw_about_window_set_version(about, AppInfo.version)
        adw_about_window_set_developer_name(about, AppInfo.developer)
        adw_about_window_set_comments(about, tr("Download a video, watch it fill a ring, play it"))
        adw_about_window_set_website(about, AppInfo.website)
        adw_about_window_set_issue_url(about, AppInfo.website + "/issues")
        // GTK's GPL 3.0 is "version 3 or (at your option) any later version", the metainfo's
        // GPL-3.0-or-later; the window shows the licence's name and a link to its text.
        adw_about_window_set_license_type(about, Self.licenseType)
        adw_about_window_set_copyright(about, "© " + AppInfo.developer)
        [AppInfo.developer].withCStringArray { adw_about_window_set_developers(about, UnsafeMutablePointer(mutating: $0)) }
        ["GTK", "libadwaita", "GLib", "GStreamer", "libcurl", "OpenSSL"].withCStringArray {
            adw_about_window_add_credit_section(about, tr("Made with"), UnsafeMutablePointer(mutating: $0))
        }
        // TRANSLATORS: your names, one a line, as they should appear in About; do not translate
        // the words "translator-credits" otherwise.
        let translators = tr("translator-credits")
        if translators != "translator-credits" { adw_about_window_set_translator_credits(about, translators) }
        return window
    }

    /// The licence `AppInfo.license` names, in GTK's terms.
    static var licenseType: GtkLicense {
        switch AppInfo.license {
        case "GPL-3.0-or-later": GTK_LICENSE_GPL_3_0
        case "GPL-3.0-only": GTK_LICENSE_GPL_3_0_ONLY
        default: GTK_LICENSE_CUSTOM
        }
    }
}

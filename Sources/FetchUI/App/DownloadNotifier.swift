import CGLib
import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization

/// Tells people when a download ends while they look at something else: a `GNotification`
/// with the video's file name (for a failure, the reason too), a Play button on a finished one
/// (`app.play-link` with the link as its target), and a click on it bringing the window back
/// on that download (`app.show-link`).
///
/// Only an end seen to happen counts (`DownloadStore.Change.ended`): a download started or
/// continued in this window that is now complete or failed. A video that was already complete
/// when it was selected says nothing, and nothing is said while the window has the focus (the
/// ring and the row already say it).
@MainActor
final class DownloadNotifier {
    private let window: UnsafeMutablePointer<GtkWidget>
    private var owned: [OwnedWidget] = []
    private let store: DownloadStore
    /// What was sent, newest last, as plain text (tests read it beside what the notification
    /// server received).
    private(set) var sent: [(id: String, title: String, body: String)] = []
    /// Whether the body reaches the desktop as markup: found before the first notification,
    /// when GLib picks its backend for good.
    private var bodyIsMarkupOnce: Bool?

    init(window: UnsafeMutablePointer<GtkWidget>, store: DownloadStore) {
        self.window = window
        self.store = store
        store.observe { [weak self] change in self?.entriesChanged(change.ended) }
        owned = OwnedWidget.keep(window)
    }

    /// The notification's id for `url`: a later one for the same link replaces it.
    static func id(for url: String) -> String { "download:" + url }

    /// `ended`: downloads that finished or failed since they were started or continued here.
    private func entriesChanged(_ ended: Set<String>) {
        for url in ended {
            switch store.entries[url]?.state {
            case .completed(let path): notifyFinished(url: url, path: path)
            case .failed(let error): notifyFailed(url: url, error: error)
            default: break
            }
        }
    }

    private var windowHasFocus: Bool { gtk_window_is_active(window.as(GtkWindow.self)) != 0 }

    private func notifyFinished(url: String, path: String) {
        guard !windowHasFocus else { return }
        let name = URL(fileURLWithPath: path).lastPathComponent
        send(url: url, title: tr("Download finished"), body: name, play: true)
    }

    private func notifyFailed(url: String, error: DownloadError) {
        guard !windowHasFocus else { return }
        // TRANSLATORS: a notification's text: %1$@ is the video's name, %2$@ why it failed.
        let body = String(format: tr("%1$@: %2$@"), LinkTitle.of(url), error.message)
        send(url: url, title: tr("Download failed"), body: body, play: false)
    }

    private func send(url: String, title: String, body: String, play: Bool) {
        // Notifications travel over the session bus; without one there is nobody to tell.
        guard let app = gtk_window_get_application(window.as(GtkWindow.self)),
              g_application_get_is_registered(app.as(GApplication.self)) != 0,
              g_application_get_dbus_connection(app.as(GApplication.self)) != nil else { return }
        let notification = g_notification_new(title)!
        g_notification_set_body(notification, bodyIsMarkup(app) ? Markup.escaped(body) : body)
        if let icon = g_themed_icon_new(AppInfo.id) {
            g_notification_set_icon(notification, icon)
            g_object_unref(icon.rawObject)
        }
        if play {
            g_notification_add_button_with_target_value(notification, tr("Play"), FetchplayAction.playLink.detailedName,
                                                        g_variant_new_string(url))
        }
        g_notification_set_default_action_and_target_value(notification, FetchplayAction.showLink.detailedName,
                                                           g_variant_new_string(url))
        g_application_send_notification(app.as(GApplication.self), Self.id(for: url), notification)
        g_object_unref(notification.rawObject)
        sent.append((Self.id(for: url), title, body))
    }

    /// Whether what `g_notification_set_body` is given reaches the notification server as
    /// markup, so that a name from outside must go in escaped (or `Tom & Jerry <1>.webm`
    /// shows cut or wrong, and a name with tags restyles the notification or adds a link).
    ///
    /// GNotification's body is plain text, but GLib 2.74 sends it on unchanged through one
    /// of three backends, picked once per application at its first notification: the
    /// `portal` one in a sandbox (`GTK_USE_PORTAL=1` or Flatpak; the portal's "body" is plain
    /// text), the `gtk` one when `org.gtk.Notifications` has an owner (GNOME Shell, which shows
    /// that body as plain text: escaping it there would show `&amp;`), else `freedesktop`:
    /// `org.freedesktop.Notifications.Notify`, whose body the specification makes markup
    /// (GNOME Shell's own server parses `<b>`, `<i>`, `<u>` and entities there; others links
    /// and images too; servers without `body-markup` are told to strip tags). So the body is
    /// escaped exactly when GLib will use the freedesktop backend, chosen by the same rules,
    /// `GNOTIFICATION_BACKEND` first as GLib honours it. The title never carries outside text.
    private func bodyIsMarkup(_ app: UnsafeMutablePointer<GtkApplication>) -> Bool {
        if let known = bodyIsMarkupOnce { return known }
        let markup: Bool
        switch getenv("GNOTIFICATION_BACKEND").map({ String(cString: $0) }) {
        case "freedesktop": markup = true
        case "gtk", "portal": markup = false
        default:
            let sandboxed = getenv("GTK_USE_PORTAL").map { String(cString: $0) } == "1"
                || access("/.flatpak-info", F_OK) == 0
            markup = !sandboxed && !Self.nameHasOwner("org.gtk.Notifications",
                                                      on: g_application_get_dbus_connection(app.as(GApplication.self)))
        }
        bodyIsMarkupOnce = markup
        return markup
    }

    /// Whether `name` is owned on the bus (a synchronous call to the bus itself, once, as GLib
    /// makes its own to pick the backend).
    private static func nameHasOwner(_ name: String, on connection: OpaquePointer?) -> Bool {
        guard let connection else { return false }
        var argument: OpaquePointer? = g_variant_new_string(name)
        let parameters = g_variant_new_tuple(&argument, 1)
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                      "org.freedesktop.DBus", "NameHasOwner", parameters, nil,
                                                      G_DBUS_CALL_FLAGS_NONE, 1000, nil, nil) else { return false }
        defer { g_variant_unref(reply) }
        guard let owned = g_variant_get_child_value(reply, 0) else { return false }
        defer { g_variant_unref(owned) }
        return g_variant_get_boolean(owned) != 0
    }
}

import CGtk
import GLibSupport
import Localization

/// Keeps the screen from blanking while a video plays: GTK's idle inhibition of the session
/// (GNOME's session manager, or the portal in a sandbox), asked for once and released on pause,
/// at the end and when the window closes.
///
/// Where no session answers (no session bus, a bare X server) GTK hands out no cookie; the
/// inhibitor still remembers that it was asked, so a later release is a no-op.
@MainActor
final class IdleInhibitor {
    private let window: UnsafeMutablePointer<GtkWidget>
    /// GTK's cookie while inhibiting; 0 when the session refused or nothing is inhibited.
    private(set) var cookie: UInt32 = 0
    /// Whether playback asked for the inhibition now (whatever the session answered).
    private(set) var isActive = false

    init(window: UnsafeMutablePointer<GtkWidget>) { self.window = window }

    /// Inhibits idling while `playing`, releases it otherwise; repeated calls change nothing.
    func update(playing: Bool) {
        guard playing != isActive else { return }
        isActive = playing
        guard let app = gtk_window_get_application(window.as(GtkWindow.self)) else { return }
        if playing {
            cookie = gtk_application_inhibit(app, window.as(GtkWindow.self), GTK_APPLICATION_INHIBIT_IDLE,
                                             tr("Playing a video"))
        } else if cookie != 0 {
            gtk_application_uninhibit(app, cookie)
            cookie = 0
        }
    }
}

import CGtk
import GLibSupport

/// Asks the session not to do something while Fetchplay needs it: not to blank the screen while
/// a video plays (idle), not to suspend while a download runs. GTK's inhibition of the session
/// (GNOME's or Xfce's session manager, or the portal in a sandbox), asked for once, released when
/// the reason ends and when the window closes.
///
/// Where no session answers (no session bus, a bare X server) GTK hands out no cookie; the
/// inhibitor still remembers that it was asked, so a later release is a no-op.
@MainActor
final class SessionInhibitor {
    private let window: UnsafeMutablePointer<GtkWidget>
    private var owned: [OwnedWidget] = []
    private let flags: GtkApplicationInhibitFlags
    /// What the session shows people ("Downloading videos"), in their language.
    private let reason: String
    /// GTK's cookie while inhibiting; 0 when the session refused or nothing is inhibited.
    private(set) var cookie: UInt32 = 0
    /// Whether the inhibition is asked for now (whatever the session answered).
    private(set) var isActive = false

    init(window: UnsafeMutablePointer<GtkWidget>, flags: GtkApplicationInhibitFlags, reason: String) {
        self.window = window
        self.flags = flags
        self.reason = reason
        owned = OwnedWidget.keep(window)
    }

    /// Inhibits while `active`, releases it otherwise; repeated calls change nothing.
    func update(active: Bool) {
        guard active != isActive else { return }
        isActive = active
        guard let app = gtk_window_get_application(window.as(GtkWindow.self)) else { return }
        if active {
            cookie = gtk_application_inhibit(app, window.as(GtkWindow.self), flags, reason)
        } else if cookie != 0 {
            gtk_application_uninhibit(app, cookie)
            cookie = 0
        }
    }
}

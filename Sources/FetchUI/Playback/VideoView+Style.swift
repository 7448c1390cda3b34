import CGtk
import GLibSupport

extension VideoView {
    /// The video page's look, kept with the view so it works without the data folder:
    /// translucent dark bars with light text over the picture. The page has no background of
    /// its own: the picture paints every pixel of it (the frame and black bars around it), and
    /// under the GL renderer each layer under the video is shaded again with every frame.
    ///
    /// And one rule for the window: without a compositor (X11), GTK frames a window that has a
    /// header bar with two inset box-shadows ("solid-csd"). GTK 4.8's GL renderer shades an inset
    /// shadow over its whole outline, so every video frame repainted them under the picture; with
    /// software GL that doubled the cost of playback. The same frame drawn as a border and padding
    /// (5 px in all, as before) looks alike and costs next to nothing.
    static let css = """
        .video-bar {
          background-color: rgba(0, 0, 0, 0.65);
          color: white;
          border-radius: 12px;
          margin: 10px;
          padding: 4px 8px;
        }
        .video-bar button { color: white; background: none; border: none; box-shadow: none; }
        .video-bar button:hover { background-color: rgba(255, 255, 255, 0.15); }
        .video-bar scale trough { background-color: rgba(255, 255, 255, 0.3); }
        .video-bar scale highlight { background-color: white; }
        .video-bar .video-time { min-width: 3.5em; }
        .video-bar .video-title { font-weight: bold; }
        .video-banner { margin-top: 64px; padding: 6px 8px 6px 16px; }
        .video-banner button { background-color: rgba(255, 255, 255, 0.15); border-radius: 8px; }
        .video-error {
          color: white;
          margin: 24px;
          padding: 18px 24px;
          border-radius: 12px;
          background-color: rgba(0, 0, 0, 0.7);
        }
        .video-view spinner { color: white; }
        window.solid-csd, window.solid-csd:backdrop { box-shadow: none; border: solid 2px @borders; padding: 3px; }
        """

    private static var styleInstalled = false

    /// Adds the style to the default display once.
    static func installStyle() {
        guard !styleInstalled, let display = gdk_display_get_default() else { return }
        styleInstalled = true
        let provider = gtk_css_provider_new()!
        gtk_css_provider_load_from_data(provider, css, -1)
        // Below the application's own style sheet, so data/style.css can still change it.
        gtk_style_context_add_provider_for_display(display, provider.opaque,
                                                   UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION) - 1)
        g_object_unref(provider.rawObject)
    }
}

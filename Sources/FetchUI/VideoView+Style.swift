import CGtk
import GLibSupport

extension VideoView {
    /// The video page's look, kept with the view so it works without the data folder: black
    /// behind the picture (letterbox bars), translucent dark bars with light text over it.
    static let css = """
        .video-view { background-color: black; }
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
        /* In a window the picture sits between the bars, so bars at rest never cover it; in
           fullscreen it takes the whole screen and the bars hide while nothing moves. */
        .video-view:not(.fullscreen) .video-picture { margin: 52px 0; }
        .video-view spinner { color: white; }
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

import CGtk
import FetchViewModel

extension RingPalette {
    /// The palette of `widget`'s current theme: accent, success and error named colours and the
    /// widget's text colour, falling back to Adwaita's light or dark values (by the text colour).
    @MainActor
    init(themeOf widget: UnsafeMutablePointer<GtkWidget>) {
        let context = gtk_widget_get_style_context(widget)
        var text = GdkRGBA()
        gtk_style_context_get_color(context, &text)
        let foreground = RGBAColor(text)
        let fallback: RingPalette = foreground.luminance > 0.5 ? .dark : .light

        func named(_ names: [String], or fallback: RGBAColor) -> RGBAColor {
            for name in names {
                var color = GdkRGBA()
                if gtk_style_context_lookup_color(context, name, &color) != 0 { return RGBAColor(color) }
            }
            return fallback
        }
        self.init(accent: named(["accent_bg_color", "accent_color", "theme_selected_bg_color"], or: fallback.accent),
                  success: named(["success_color"], or: fallback.success),
                  error: named(["error_color"], or: fallback.error),
                  foreground: foreground)
    }
}

extension RGBAColor {
    init(_ color: GdkRGBA) {
        self.init(red: Double(color.red), green: Double(color.green), blue: Double(color.blue),
                  alpha: Double(color.alpha))
    }
}

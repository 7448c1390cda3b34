/// The ring's colours, normally read from the GTK theme (`RingPalette(themeOf:)`).
public struct RingPalette: Sendable, Equatable {
    public var accent: RGBAColor
    public var success: RGBAColor
    public var error: RGBAColor
    /// The widget's text colour: the percentage, and (faintly) the track.
    public var foreground: RGBAColor

    public init(accent: RGBAColor, success: RGBAColor, error: RGBAColor, foreground: RGBAColor) {
        self.accent = accent
        self.success = success
        self.error = error
        self.foreground = foreground
    }

    /// The unfilled part of the ring.
    public var track: RGBAColor { foreground.withAlpha(foreground.alpha * 0.12) }

    /// The unfilled part for a tone: tinted with the error colour once failed, so the state shows
    /// even when nothing was downloaded.
    public func track(for tone: RingFrame.Tone) -> RGBAColor {
        tone == .failed ? error.withAlpha(error.alpha * 0.22) : track
    }

    /// The arc's colour for a tone.
    public func arc(for tone: RingFrame.Tone) -> RGBAColor {
        switch tone {
        case .running: accent
        case .paused: accent.withAlpha(accent.alpha * 0.5)
        case .failed: error
        case .done: success
        }
    }

    /// Adwaita's light colours, used when the theme names none.
    public static let light = RingPalette(accent: RGBAColor(hex: 0x3584e4), success: RGBAColor(hex: 0x26a269),
                                          error: RGBAColor(hex: 0xc01c28), foreground: RGBAColor(hex: 0x2e3436))
    /// Adwaita's dark colours, used when the theme names none and its text is light.
    public static let dark = RingPalette(accent: RGBAColor(hex: 0x78aeed), success: RGBAColor(hex: 0x8ff0a4),
                                         error: RGBAColor(hex: 0xff7b63), foreground: RGBAColor(hex: 0xeeeeec))
}

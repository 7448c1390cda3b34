/// Everything one drawing of the ring shows: a value, so a frame can be drawn to any surface.
public struct RingFrame: Sendable, Equatable {
    /// Which colour the arc takes.
    public enum Tone: Sendable, Equatable {
        /// Downloading: the accent colour.
        case running
        /// Paused, or a partial ready to continue: the accent colour, dimmed.
        case paused
        /// Stopped by an error: the theme's error colour.
        case failed
        /// Complete: the success colour, and the checkmark.
        case done
    }

    public var tone: Tone
    /// How much of the turn the arc covers, 0…1.
    public var fraction: Double
    /// For the indeterminate animation: where the arc starts, as a fraction of a turn from twelve
    /// o'clock. Nil for a determinate arc, which always starts at twelve o'clock.
    public var spinStart: Double?
    /// How much of the checkmark is drawn, 0 (none) … 1 (all).
    public var checkmark: Double
    /// Text in the middle (the percentage); not drawn once the checkmark shows.
    public var label: String?

    public init(tone: Tone, fraction: Double, spinStart: Double? = nil, checkmark: Double = 0,
                label: String? = nil) {
        self.tone = tone
        self.fraction = fraction
        self.spinStart = spinStart
        self.checkmark = checkmark
        self.label = label
    }
}

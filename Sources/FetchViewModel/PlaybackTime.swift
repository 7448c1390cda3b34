import Foundation
import Localization
import FetchCore

/// Playback times as a video player shows them: "0:05", "1:23", "1:02:03". Pure, for tests.
public enum PlaybackTime {
    /// `seconds` rounded down to whole seconds; hours appear only when needed.
    public static func string(_ seconds: Double) -> String {
        let total = TimeFormat.wholeSeconds(seconds, rounding: .down)
        let hours = total / 3600, minutes = (total / 60) % 60, rest = total % 60
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    /// What a screen reader says for the seek bar: "1:23 of 4:56".
    public static func spoken(position: Double, duration: Double?) -> String {
        guard let duration else { return string(position) }
        return String(format: tr("%1$@ of %2$@"), string(position), string(duration))
    }

    /// A playback speed as the controls show it: "0.5×", "1×", "1.25×".
    public static func rate(_ rate: Double) -> String {
        let hundredths = Int((rate * 100).rounded())
        var text = "\(hundredths / 100)"
        let fraction = hundredths % 100
        if fraction != 0 { text += fraction % 10 == 0 ? ".\(fraction / 10)" : ".\(fraction < 10 ? "0" : "")\(fraction)" }
        return text + "×"
    }
}

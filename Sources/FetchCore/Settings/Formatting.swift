import Foundation
import Localization

/// Sizes for people: "12.3 MB" (decimal units, as GNOME shows them).
public enum ByteFormat {
    public static func string(_ bytes: Int64) -> String {
        // TRANSLATORS: decimal units of size, as GNOME shows them.
        let units = ["", tr("kB"), tr("MB"), tr("GB"), tr("TB")]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return String(format: trn("%1$lld byte", "%1$lld bytes", Int(bytes)), bytes) }
        return String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }
}

/// Durations for people: "42 s", "3 min 5 s", "1 h 2 min".
public enum TimeFormat {
    public static func string(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "—" }
        let total = wholeSeconds(seconds, rounding: .up)
        // TRANSLATORS: durations, short: 42 s, 3 min 5 s, 1 h 2 min.
        if total < 60 { return String(format: tr("%1$ld s"), total) }
        if total < 3600 { return String(format: tr("%1$ld min %2$ld s"), total / 60, total % 60) }
        return String(format: tr("%1$ld h %2$ld min"), total / 3600, total % 3600 / 60)
    }
}

extension TimeFormat {
    /// A century, in seconds: more than any real video or download takes.
    static let longest = 100.0 * 365 * 24 * 3600

    /// Whole seconds of a duration that came from outside (a server's numbers, a record on
    /// disk), without ever trapping: not finite or negative is 0, absurdly large is capped.
    public static func wholeSeconds(_ seconds: Double,
                                    rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, longest).rounded(rule))
    }
}

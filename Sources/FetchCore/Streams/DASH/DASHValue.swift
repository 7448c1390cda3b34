/// The schema's value types as packagers and CDNs write them (ISO/IEC 23009-1's MPD schema over
/// XML Schema Part 2): `xs:duration` with any of its fields and a fraction, `xs:double` with a
/// fraction or an exponent, whole numbers (also when written as a double, "1.5E3"), and byte
/// ranges. Each reader answers nil for text that is not of its type; `DASHParseState` turns that
/// into a sentence naming the element and the attribute.
enum DASHValue {
    /// An `xs:duration` in seconds: "PT1H", "PT0.5S", "P1DT2H", "P0Y0M0DT0H3M30.000S"; years
    /// and months as 365 and 30 days. Fields in their order, each at most once, a fraction only
    /// on the last one written (ISO 8601), a `T` only before a time field. Nil for anything else,
    /// a negative duration, or one past 10⁹ s.
    static func duration(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces)).utf8[...]
        guard rest.first == UInt8(ascii: "P") else { return nil }
        rest = rest.dropFirst()
        // The fields in the only order they may come, the date's then the time's.
        let dateUnits: [(UInt8, Double)] = [(UInt8(ascii: "Y"), 365 * 86_400), (UInt8(ascii: "M"), 30 * 86_400),
                                           (UInt8(ascii: "W"), 7 * 86_400), (UInt8(ascii: "D"), 86_400)]
        let timeUnits: [(UInt8, Double)] = [(UInt8(ascii: "H"), 3_600), (UInt8(ascii: "M"), 60), (UInt8(ascii: "S"), 1)]
        var units = dateUnits[...]
        var total = 0.0
        var fields = 0
        var fractional = false
        var inTime = false
        var timeFields = 0
        while let first = rest.first {
            if first == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                units = timeUnits[...]
                rest = rest.dropFirst()
                continue
            }
            // A fraction ends the duration: it is on the last field only.
            guard !fractional else { return nil }
            let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: ".") }
            rest = rest.dropFirst(digits.count)
            guard let unit = rest.first, let index = units.firstIndex(where: { $0.0 == unit }),
                  let value = decimal(Substring(digits)) else { return nil }
            fractional = digits.contains(UInt8(ascii: "."))
            total += value * units[index].1
            units = units[(index + 1)...]
            rest = rest.dropFirst()
            fields += 1
            if inTime { timeFields += 1 }
        }
        guard fields > 0, !inTime || timeFields > 0, total.isFinite, total < 1e9 else { return nil }
        return total
    }

    /// "12", "12.5", ".5", "12.": digits with at most one point, at least one digit.
    private static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2, parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
              parts[0].count <= 18, parts.count == 1 || parts[1].count <= 18 else { return nil }
        return Double(text.hasSuffix(".") ? String(text.dropLast()) : String(text))
    }

    /// An `xs:double` that is a number: an optional sign, digits with an optional fraction, an
    /// optional exponent ("30", "29.97", "1.5E3", "-2e-1", ".5"). Nil for "INF", "NaN", hex,
    /// anything else, and for a value too large to be finite.
    static func double(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces)
        var rest = Substring(text)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0 != "e" && $0 != "E" }
        let exponent = rest.dropFirst(mantissa.count)
        guard mantissa.count <= 40, decimal(mantissa) != nil else { return nil }
        if !exponent.isEmpty {
            var power = exponent.dropFirst()
            if power.first == "+" || power.first == "-" { power = power.dropFirst() }
            guard !power.isEmpty, power.count <= 4, power.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A whole number (`xs:unsignedInt`, `xs:unsignedLong`, `xs:long`), also when written as a
    /// double whose value is whole ("2000.0", "1.5E3"); nil for a fraction or past ±2⁵³.
    static func whole(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int64(trimmed) { return value }
        guard let value = double(trimmed), value == value.rounded(), abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int64(value)
    }

    /// A byte range `first-last`, both included.
    static func range(_ text: String) -> DASHRange? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0].trimmingCharacters(in: .whitespaces)),
              let last = Int64(parts[1].trimmingCharacters(in: .whitespaces)), first >= 0, last >= first, last < Int64.max / 2 else {
            return nil
        }
        return DASHRange(first: first, last: last)
    }
}

/// A set of byte offsets as sorted, disjoint, non-adjacent half-open ranges: the bytes of a
/// partial that are written (or durable), which several connections fill in any order.
struct ByteRanges: Sendable, Equatable, Codable {
    private(set) var ranges: [Range<Int64>] = []

    init() {}

    init(_ ranges: [Range<Int64>]) {
        for range in ranges { insert(range) }
    }

    /// `[0, count)`: the prefix an older, one-connection record vouches for.
    init(prefix count: Int64) {
        if count > 0 { ranges = [0..<count] }
    }

    /// Adds `range`, merging it with the ranges it overlaps or touches.
    mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for existing in ranges {
            if existing.upperBound < merged.lowerBound {
                kept.append(existing)
            } else if merged.upperBound < existing.lowerBound {
                if !placed { kept.append(merged); placed = true }
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        if !placed { kept.append(merged) }
        ranges = kept
    }

    /// Bytes in the set.
    var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    var isEmpty: Bool { ranges.isEmpty }

    /// Where the set ends: one past its last byte (0 when empty).
    var upperBound: Int64 { ranges.last?.upperBound ?? 0 }

    /// Bytes from 0 with no hole: what a player can read straight through.
    var prefixLength: Int64 { ranges.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0 }

    func contains(_ offset: Int64) -> Bool {
        ranges.contains { $0.contains(offset) }
    }

    /// Whether every byte of `[0, total)` is in the set.
    func covers(total: Int64) -> Bool {
        // (No range ends below 0: a negative total, which no server sends, is never covered.)
        total >= 0 && (total == 0 || ranges == [0..<total])
    }

    /// The holes of `[0, total)`, in order.
    func gaps(upTo total: Int64) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        var next: Int64 = 0
        for range in ranges where range.lowerBound < total {
            if range.lowerBound > next { result.append(next..<range.lowerBound) }
            next = max(next, range.upperBound)
        }
        if next < total { result.append(next..<total) }
        return result
    }

    /// The bytes of this set that are not in `other`.
    func subtracting(_ other: ByteRanges) -> ByteRanges {
        var result = ByteRanges()
        for range in ranges {
            var next = range.lowerBound
            for cut in other.ranges where cut.upperBound > next && cut.lowerBound < range.upperBound {
                if cut.lowerBound > next { result.ranges.append(next..<cut.lowerBound) }
                next = max(next, cut.upperBound)
            }
            if next < range.upperBound { result.ranges.append(next..<range.upperBound) }
        }
        return result
    }

    /// The set limited to `[0, bound)`.
    func clamped(to bound: Int64) -> ByteRanges {
        var result = ByteRanges()
        result.ranges = ranges.compactMap { range in
            range.lowerBound < bound ? range.lowerBound..<min(range.upperBound, bound) : nil
        }
        return result
    }

    // Encoded as [[start, end], …]: plain to read in a record.
    init(from decoder: any Decoder) throws {
        let pairs = try [[Int64]](from: decoder)
        for pair in pairs {
            guard pair.count == 2, pair[0] >= 0, pair[0] <= pair[1] else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a byte range: \(pair)"))
            }
            insert(pair[0]..<pair[1])
        }
    }

    func encode(to encoder: any Encoder) throws {
        try ranges.map { [$0.lowerBound, $0.upperBound] }.encode(to: encoder)
    }
}

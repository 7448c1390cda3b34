/// A Segment Index box (`sidx`, ISO/IEC 14496-12 §8.16.3): where a SegmentBase
/// Representation's segments lie in its file. Pure and bounded: it reads only the bytes given
/// and never trusts a count past them.
enum DASHSegmentIndex {
    struct Reference: Equatable {
        var range: DASHRange
        /// Seconds.
        var duration: Double
    }

    /// The media segments `bytes` (read at file offset `start`: the `indexRange`) list.
    ///
    /// - Throws: `.invalid` when there is no `sidx`, it is cut short, or it points to other
    ///   `sidx` boxes (a hierarchy, which no packager of on-demand files writes).
    static func references(_ bytes: [UInt8], at start: Int64) throws(DASHRefusal) -> [Reference] {
        // The sidx among the boxes there (a `styp` or `free` may come first).
        var offset = 0
        var box: (payload: Range<Int>, end: Int)?
        while offset + 8 <= bytes.count {
            var size = Int(read32(bytes, offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= bytes.count else { break }
                let large = UInt64(read32(bytes, offset + 8)) << 32 | UInt64(read32(bytes, offset + 12))
                guard large < UInt64(Int32.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= header else { break }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("sidx".utf8) {
                guard offset + size <= bytes.count else { throw .invalid("its sidx is cut short by the indexRange") }
                box = ((offset + header)..<(offset + size), offset + size)
                break
            }
            offset += size
        }
        guard let box else { throw .invalid("there is no sidx box at its indexRange") }
        let payload = Array(bytes[box.payload])
        guard payload.count >= 12 else { throw .invalid("its sidx is cut short") }
        let version = payload[0]
        let timescale = read32(payload, 8)
        guard timescale > 0 else { throw .invalid("its sidx has no timescale") }
        var at = 12
        let firstOffset: UInt64
        if version == 0 {
            guard payload.count >= at + 8 else { throw .invalid("its sidx is cut short") }
            firstOffset = UInt64(read32(payload, at + 4))
            at += 8
        } else {
            guard payload.count >= at + 16 else { throw .invalid("its sidx is cut short") }
            firstOffset = UInt64(read32(payload, at + 8)) << 32 | UInt64(read32(payload, at + 12))
            at += 16
        }
        guard payload.count >= at + 4 else { throw .invalid("its sidx is cut short") }
        let count = Int(payload[at + 2]) << 8 | Int(payload[at + 3])
        at += 4
        guard payload.count >= at + count * 12 else { throw .invalid("its sidx lists more references than it holds") }
        guard count > 0 else { throw .invalid("its sidx lists no segments") }
        guard firstOffset < UInt64(Int64.max / 4) else { throw .invalid("its sidx points past any file") }
        // Offsets count from the first byte after the sidx.
        var position = start + Int64(box.end) + Int64(firstOffset)
        var result: [Reference] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let word = read32(payload, at + index * 12)
            guard word & 0x8000_0000 == 0 else { throw .invalid("its sidx points to other sidx boxes") }
            let size = Int64(word & 0x7FFF_FFFF)
            guard size > 0 else { throw .invalid("its sidx lists an empty segment") }
            let duration = Double(read32(payload, at + index * 12 + 4)) / Double(timescale)
            result.append(Reference(range: DASHRange(first: position, last: position + size - 1), duration: duration))
            position += size
        }
        return result
    }

    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

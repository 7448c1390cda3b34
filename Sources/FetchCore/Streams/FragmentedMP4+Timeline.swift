/// Decode times of fragmented MP4 moved onto one timeline: a DASH presentation's Periods each
/// start their media time where their packager chose (often at 0 again), and the remux of
/// their segments joined needs times that go on where the last Period ended.
extension FragmentedMP4 {
    /// Each track's timescale (`trak/tkhd` ID → `mdia/mdhd` units per second) in an init section.
    static func timescales(_ bytes: UnsafeRawBufferPointer) -> [UInt32: UInt32] {
        guard let moov = boxes(in: bytes)?.first(where: { $0.type == "moov" }), let children = boxes(in: moov.payload) else { return [:] }
        var result: [UInt32: UInt32] = [:]
        for trak in children where trak.type == "trak" {
            guard let parts = boxes(in: trak.payload), let tkhd = parts.first(where: { $0.type == "tkhd" }),
                  let mdia = parts.first(where: { $0.type == "mdia" }),
                  let mdhd = boxes(in: mdia.payload)?.first(where: { $0.type == "mdhd" }),
                  tkhd.payload.count >= 4, mdhd.payload.count >= 4,
                  let id = word(tkhd.payload, tkhd.payload[0] == 1 ? 20 : 12),
                  let timescale = word(mdhd.payload, mdhd.payload[0] == 1 ? 20 : 12), timescale > 0 else { continue }
            result[id] = timescale
        }
        return result
    }

    /// Rewrites every `moof/traf/tfdt` decode time in `bytes` (a media segment, in place) to
    /// `shift(track, time)`; false when the boxes do not add up (nothing is then changed past
    /// that point, and the check after says why).
    @discardableResult
    static func rewriteDecodeTimes(_ bytes: UnsafeMutableRawBufferPointer, _ shift: (UInt32, UInt64) -> UInt64) -> Bool {
        let whole = UnsafeRawBufferPointer(bytes)
        guard let top = boxes(in: whole), let base = whole.baseAddress else { return false }
        for moof in top where moof.type == "moof" {
            guard let children = boxes(in: moof.payload) else { return false }
            for traf in children where traf.type == "traf" {
                guard let parts = boxes(in: traf.payload),
                      let tfhd = parts.first(where: { $0.type == "tfhd" }), let id = word(tfhd.payload, 4),
                      let tfdt = parts.first(where: { $0.type == "tfdt" }), tfdt.payload.count >= 8 else { continue }
                let at = tfdt.payload.baseAddress! - base
                let wide = tfdt.payload[0] == 1
                guard !wide || tfdt.payload.count >= 12 else { return false }
                var time: UInt64 = 0
                for index in 4..<(wide ? 12 : 8) { time = time << 8 | UInt64(tfdt.payload[index]) }
                let moved = shift(id, time)
                if wide {
                    for index in 0..<8 { bytes[at + 4 + index] = UInt8(truncatingIfNeeded: moved >> (56 - 8 * index)) }
                } else {
                    let narrow = UInt32(truncatingIfNeeded: moved)
                    for index in 0..<4 { bytes[at + 4 + index] = UInt8(truncatingIfNeeded: narrow >> (24 - 8 * index)) }
                }
            }
        }
        return true
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

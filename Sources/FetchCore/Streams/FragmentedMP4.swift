/// Just enough of ISO BMFF (ISO/IEC 14496-12) to tell whether an HLS init section
/// (`EXT-X-MAP`) and the segments after it belong together, before they reach the remux: a bad
/// one then fails with a sentence that names it, not with a demuxer's words, a remux that never
/// ends, or a video with parts missing (a demuxer drops fragments of tracks it does not know).
///
/// Pure and bounded: it walks box headers over bytes already in memory and never trusts a size
/// that runs past them.
enum FragmentedMP4 {
    /// What an init section turned out to be.
    enum Section: Equatable {
        /// An MP4 `moov` declaring these tracks (`trak/tkhd` track IDs).
        case mp4(tracks: Set<UInt32>)
        /// MPEG-TS (its PAT and PMT): RFC 8216 allows EXT-X-MAP for transport streams too.
        case transportStream
    }

    /// Reads an init section; nil when it is neither an MP4 with a `moov` nor MPEG-TS.
    static func section(_ bytes: UnsafeRawBufferPointer) -> Section? {
        // A sync byte every 188 bytes.
        if !bytes.isEmpty, bytes[0] == 0x47, bytes.count <= 188 || bytes[188] == 0x47 { return .transportStream }
        guard let top = boxes(in: bytes), let moov = top.first(where: { $0.type == "moov" }),
              let children = boxes(in: moov.payload) else { return nil }
        var tracks = Set<UInt32>()
        for trak in children where trak.type == "trak" {
            guard let tkhd = boxes(in: trak.payload)?.first(where: { $0.type == "tkhd" }) else { return nil }
            // A full box: version, flags, then (version 1) 64-bit or (0) 32-bit times before the ID.
            let payload = tkhd.payload
            guard payload.count >= 4 else { return nil }
            let at = payload[0] == 1 ? 20 : 12
            guard let id = bigEndian32(payload, at) else { return nil }
            tracks.insert(id)
        }
        return tracks.isEmpty ? nil : .mp4(tracks: tracks)
    }

    /// The track IDs a media segment's fragments carry (`moof/traf/tfhd`); nil when it is not
    /// fragmented MP4 (no `moof`, or boxes that do not add up).
    static func fragmentTracks(_ bytes: UnsafeRawBufferPointer) -> Set<UInt32>? {
        guard let top = boxes(in: bytes) else { return nil }
        var tracks = Set<UInt32>()
        var fragments = 0
        for moof in top where moof.type == "moof" {
            fragments += 1
            guard let children = boxes(in: moof.payload) else { return nil }
            for traf in children where traf.type == "traf" {
                // tfhd: version and flags, then the track ID.
                guard let tfhd = boxes(in: traf.payload)?.first(where: { $0.type == "tfhd" }),
                      let id = bigEndian32(tfhd.payload, 4) else { return nil }
                tracks.insert(id)
            }
        }
        return fragments == 0 ? nil : tracks
    }

    /// One box: its four-character type and what follows its header.
    struct Box {
        var type: String
        var payload: UnsafeRawBufferPointer
    }

    /// The boxes that exactly fill `bytes`, in order; nil when a header is not one (a type
    /// that is not four printable characters, a size smaller than its header or past the end).
    static func boxes(in bytes: UnsafeRawBufferPointer) -> [Box]? {
        var result: [Box] = []
        var offset = 0
        while offset < bytes.count {
            guard let small = bigEndian32(bytes, offset), offset + 8 <= bytes.count else { return nil }
            let typeBytes = (4..<8).map { bytes[offset + $0] }
            guard typeBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            var header = 8
            var size = Int(small)
            if small == 1 {
                guard let high = bigEndian32(bytes, offset + 8), let low = bigEndian32(bytes, offset + 12),
                      high < 1 << 20 else { return nil }
                size = Int(high) << 32 | Int(low)
                header = 16
            } else if small == 0 {
                // To the end of the bytes.
                size = bytes.count - offset
            }
            guard size >= header, size <= bytes.count - offset else { return nil }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + header)..<(offset + size)])
            result.append(Box(type: String(decoding: typeBytes, as: UTF8.self), payload: payload))
            offset += size
        }
        return result
    }

    private static func bigEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

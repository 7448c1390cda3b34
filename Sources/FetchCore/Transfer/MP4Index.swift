/// Where an MP4's index (`moov`) starts when it comes after the media (`mdat`), read from the
/// file's first boxes: a player needs the index before any frame, so a download that fetches the
/// tail first lets the video start early instead of after the whole file.
///
/// An MP4 is a row of boxes, each starting with a 32-bit big-endian size and a four-letter
/// type; size 1 means a 64-bit size follows, size 0 means "to the end of the file". Files made
/// for the web put `moov` first ("fast start"); cameras and `mp4mux` by default write it last.
enum MP4Index {
    /// The byte offset of the first box after `mdat` (the index) when `head`, the file's first
    /// bytes, is an MP4 whose `mdat` comes before any `moov`; nil when the index comes first,
    /// the file is not an MP4, or `head` does not reach the `mdat` header.
    static func tailIndexOffset(head: [UInt8], total: Int64) -> Int64? {
        var offset: Int64 = 0
        var first = true
        while offset + 8 <= Int64(head.count) {
            let at = Int(offset)
            var size = Int64(bigEndian32(head, at))
            let type = String(decoding: head[at + 4..<at + 8], as: UTF8.self)
            var header: Int64 = 8
            if size == 1 {
                guard offset + 16 <= Int64(head.count) else { return nil }
                size = Int64(bitPattern: UInt64(bigEndian32(head, at + 8)) << 32 | UInt64(bigEndian32(head, at + 12)))
                header = 16
            } else if size == 0 {
                size = total - offset
            }
            // The first box names the file an MP4 (ISO base media: `ftyp`; older QuickTime files
            // may start with a `wide` or `free` box).
            if first, !["ftyp", "wide", "free", "skip"].contains(type) { return nil }
            first = false
            guard size >= header, offset + size <= total else { return nil }
            switch type {
            case "moov":
                return nil // the index comes first: nothing to fetch early
            case "mdat":
                let end = offset + size
                return end < total ? end : nil
            default:
                offset += size
            }
        }
        return nil
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}

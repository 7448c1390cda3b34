import Glibc
import ThreadKit

/// One track of a presentation handed to the remux in playing order, in the clear: each
/// resource as soon as it is whole, byte ranges cut out of it, AES-128 undone, each init
/// section once before the first segment that needs it.
struct SegmentFeed {
    /// One piece of the joined stream: all of a resource or a range of it, maybe encrypted.
    struct Piece: Equatable {
        var url: String
        var range: ByteSpan?
        var key: SegmentKey?
        var kind = Kind.segment
        /// Its DASH Period's start in seconds, for fragments whose decode times are moved there.
        var periodStart: Double?

        /// Its bytes in the store.
        var stored: StreamPiece { StreamPiece(url: url, range: range) }

        enum Kind: Equatable {
            /// A media segment of a track without init sections.
            case segment
            /// An init section.
            case initSection
            /// A media segment after an init section, checked against it.
            case fragment
        }
    }

    /// The remux's number for this input.
    let index: Int
    let pieces: [Piece]

    init(index: Int, track: StreamTrack) {
        self.index = index
        pieces = Self.pieces(of: track)
    }

    /// The pieces of `track` in the order they are joined.
    static func pieces(of track: StreamTrack) -> [Piece] {
        var result: [Piece] = []
        var last: Int?
        for segment in track.segments {
            if let index = segment.section, index != last {
                let section = track.sections[index]
                result.append(Piece(url: section.url, range: section.range, key: section.key, kind: .initSection))
                last = index
            }
            result.append(Piece(url: segment.url, range: segment.range, key: segment.key,
                                kind: segment.section == nil ? .segment : .fragment, periodStart: segment.periodStart))
        }
        return result
    }

    /// Appends every piece as it arrives, then ends the input. Returns false when the store
    /// closed or `stopped` said so first (a pause, a failure elsewhere).
    ///
    /// - Parameters:
    ///   - store: where the pieces are; one whose bytes are not what the playlist says they are
    ///     (`check`) is forgotten there before the error is thrown, so a continue fetches it again.
    ///   - appended: called after each piece went in.
    func run(store: SegmentStore, keys: SegmentKeyring, into stream: any PresentationRemuxStream,
             stopped: () -> Bool, appended: () -> Void = {}) throws(DownloadError) -> Bool {
        /// What the last init section was, for the fragments after it.
        var section: FragmentedMP4.Section?
        /// Several DASH Periods: the last init section's timescales, and per Period start and
        /// track what its decode times are moved by (set by its first fragment).
        var timescales: [UInt32: UInt32] = [:]
        var shifts: [Double: [UInt32: Int64]] = [:]
        for piece in pieces {
            guard store.wait(for: piece.stored), !stopped() else { return false }
            var refused = false
            do {
                if let key = piece.key {
                    let clear = try SegmentCipher.decrypt(Self.read(piece, store: store), key: keys.key(at: key.url), iv: key.iv)
                    refused = true
                    section = try clear.withUnsafeBytes { try Self.check(piece, $0, after: section) }
                    refused = false
                    try stream.append(clear, to: index)
                } else {
                    // Read from the page cache straight into the remux's buffer.
                    let file = try Self.open(piece, store: store)
                    defer { FileIO.close(file.fd) }
                    let last = section
                    var next = section
                    var scales = timescales
                    var moved = shifts
                    try stream.append(count: Int(file.length), to: index) { buffer in
                        try Self.read(file, into: buffer)
                        refused = true
                        next = try Self.check(piece, UnsafeRawBufferPointer(buffer), after: last)
                        refused = false
                        if piece.kind == .initSection {
                            scales = FragmentedMP4.timescales(UnsafeRawBufferPointer(buffer))
                        } else if piece.kind == .fragment, let start = piece.periodStart {
                            FragmentedMP4.rewriteDecodeTimes(buffer) { track, time in
                                let shift = moved[start]?[track] ?? {
                                    let target = Int64((start * Double(scales[track] ?? 1)).rounded())
                                    let shift = target - Int64(clamping: time)
                                    moved[start, default: [:]][track] = shift
                                    return shift
                                }()
                                return UInt64(clamping: max(0, Int64(clamping: time) &+ shift))
                            }
                        }
                    }
                    section = next
                    timescales = scales
                    shifts = moved
                }
            } catch {
                if refused { store.forget(piece.stored) }
                // A stop closes the remux under a feed that waits in it.
                if stopped() { return false }
                switch error {
                case let error as DownloadError: throw error
                case RunHalt.failed(let error): throw error
                case RunHalt.stopped: return false
                default: throw .remuxFailed("\(error)")
                }
            }
            appended()
        }
        if case .mp4 = section {
            // GStreamer 1.22's qtdemux, reading a stream (not a file), leaves the last sample of
            // the final mdat unread when the stream ends there: an AAC frame lost from every
            // fMP4 audio rendition. An empty `free` box after it, which every reader skips,
            // makes it read to the end.
            do { try stream.append(Self.trailingBox, to: index) } catch { throw error as? DownloadError ?? .remuxFailed("\(error)") }
        }
        stream.end(index)
        return true
    }

    /// An 8-byte ISO BMFF `free` box.
    static let trailingBox: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)

    /// An init section must be MP4 (or MPEG-TS), and each fragment after an MP4 one must be
    /// fragmented MP4 of its tracks: else the remux would fail with a demuxer's words, or drop
    /// the fragment and write a video with a hole.
    ///
    /// - Parameter section: what the last init section was.
    /// - Returns: what the last init section is after this piece.
    static func check(_ piece: Piece, _ bytes: UnsafeRawBufferPointer,
                      after section: FragmentedMP4.Section?) throws(DownloadError) -> FragmentedMP4.Section? {
        let name = RelativeLink.quotedName(of: piece.url)
        switch piece.kind {
        case .segment:
            return section
        case .initSection:
            guard let read = FragmentedMP4.section(bytes) else {
                throw .remuxFailed("its init section \(name) is neither an MP4 initialisation nor MPEG-TS")
            }
            return read
        case .fragment:
            guard case .mp4(let tracks) = section else { return section }
            guard let carried = FragmentedMP4.fragmentTracks(bytes) else {
                throw .remuxFailed("the segment \(name) is not fragmented MP4: it has no moof box")
            }
            let strangers = carried.subtracting(tracks)
            guard strangers.isEmpty else {
                let list = { (ids: Set<UInt32>) in ids.sorted().map(String.init).joined(separator: ", ") }
                throw .remuxFailed("the segment \(name) does not belong to its init section: it carries track \(list(strangers)), "
                                   + "the init section declares \(list(tracks))")
            }
            return section
        }
    }

    /// A piece's resource opened, and where the piece lies in it.
    struct Opened {
        var fd: Int32
        var path: String
        var offset: Int64
        var length: Int64
    }

    static func open(_ piece: Piece, store: SegmentStore) throws(DownloadError) -> Opened {
        guard let place = store.location(of: piece.stored) else { throw .fileSystem("the segment \(piece.url) is missing from the cache") }
        let fd = try FileIO.open(place.path, O_RDONLY)
        let size = FileIO.size(of: place.path) ?? 0
        guard place.offset >= 0, place.offset + place.length <= size else {
            FileIO.close(fd)
            throw .badResponse("the byte range \(place.length)@\(place.offset) lies past the end of \(piece.url) (\(size) bytes)")
        }
        return Opened(fd: fd, path: place.path, offset: place.offset, length: place.length)
    }

    /// The piece's bytes in the clear (AES-128 undone): what a player watching the presentation
    /// while it downloads is served (`WatchServer`). The piece must be whole in the store.
    static func clearBytes(of piece: Piece, store: SegmentStore, keys: SegmentKeyring) throws(RunHalt) -> [UInt8] {
        let bytes = try RunHalt.failing { () throws(DownloadError) in try read(piece, store: store) }
        guard let key = piece.key else { return bytes }
        let secret = try keys.key(at: key.url)
        return try RunHalt.failing { () throws(DownloadError) in try SegmentCipher.decrypt(bytes, key: secret, iv: key.iv) }
    }

    /// The bytes of the piece's resource, or of its range within it.
    static func read(_ piece: Piece, store: SegmentStore) throws(DownloadError) -> [UInt8] {
        let file = try open(piece, store: store)
        defer { FileIO.close(file.fd) }
        var failure: DownloadError?
        // Not zeroed first: every byte is read into it, or it is thrown away.
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(file.length)) { buffer, initialized in
            do throws(DownloadError) {
                try Self.read(file, into: UnsafeMutableRawBufferPointer(buffer))
                initialized = buffer.count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Fills `buffer` from the piece's place in its file.
    private static func read(_ file: Opened, into buffer: UnsafeMutableRawBufferPointer) throws(DownloadError) {
        var done = 0
        while done < buffer.count {
            let count = pread(file.fd, buffer.baseAddress! + done, buffer.count - done, off_t(file.offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? FileIO.error("pread", file.path, errno: EIO) : FileIO.error("pread", file.path) }
            done += count
        }
    }
}

/// The AES-128 keys of a presentation, each fetched once when a feed first needs it.
final class SegmentKeyring: Sendable {
    private let fetch: ResourceFetch
    private let keys = Locked<[String: [UInt8]]>([:])

    init(fetch: ResourceFetch) { self.fetch = fetch }

    /// The 16 bytes at `url`. Feeds that need the same key wait for one fetch.
    func key(at url: String) throws(RunHalt) -> [UInt8] {
        try keys.withLock { keys throws(RunHalt) -> [UInt8] in
            if let key = keys[url] { return key }
            let answer = try fetch.get(url)
            guard answer.body.count == 16 else {
                throw .failed(.badResponse("the AES-128 key is \(answer.body.count) bytes, not 16"))
            }
            keys[url] = answer.body
            return answer.body
        }
    }
}

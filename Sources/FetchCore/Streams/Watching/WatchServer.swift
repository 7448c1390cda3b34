import Foundation
import ThreadKit

/// Serves an HLS or DASH presentation that is still downloading to a player on this machine, as
/// an HLS presentation on 127.0.0.1 (`WatchPlaylist`), read from the download's segment store.
///
/// GStreamer's HLS demuxer then does what watching needs: it plays the tracks in step, seeks by
/// the segments' durations and asks for the segments at the new place. A segment not yet on
/// disk is asked of the download first (`DownloadBoard.want(seconds:)`), so all its connections
/// work on the next seconds the viewer needs; meanwhile the answer has begun and stays alive
/// with filler the demuxers skip (an empty MP4 `free` box, an MPEG-TS null packet), since the
/// demuxer gives a request up after 15 silent seconds. A segment in the clear goes out as its
/// bytes arrive, read from its file in the store as it grows: the demuxer shows a segment's
/// first frame from its first bytes, long before the segment is whole. A paused download keeps
/// the request waiting, and a continue (a new run) carries it on.
///
/// Only this process's player knows the address: the port is picked by the system, and every
/// path starts with a random token. Nothing from outside reaches it (loopback only).
public final class WatchServer: Sendable {
    /// The master playlist, for the player.
    public let url: String
    private let board: DownloadBoard
    private let token: String
    private let listener: LoopbackSocket
    private let closed = StopSignal()
    /// Requests waiting for a segment that is not on disk yet.
    private let waiting = Locked(0)
    private let connections: Worker
    private let accepting: Locked<Worker?> = Locked(nil)

    /// Connections served at once (a player opens one or two per track); more wait their turn.
    static let connectionLimit = 6
    /// The longest request head read.
    static let headLimit = 16 * 1024

    /// The presentation's first WebVTT subtitle file, for the player's subtitles (GStreamer's
    /// HLS demuxer reads no subtitle renditions).
    public var subtitleFile: String? { board.stream?.subtitles.first }

    /// Starts serving `board`'s presentation; throws when no socket could be made.
    public init(board: DownloadBoard) throws(DownloadError) {
        self.board = board
        listener = try LoopbackSocket.listening()
        token = Cache.digest(UUID().uuidString + UUID().uuidString).prefix(32).lowercased()
        url = "http://127.0.0.1:\(listener.port)/\(token)/master.m3u8"
        connections = Worker(name: "fetchplay watch", threads: Self.connectionLimit, stage: .playback)
        board.addViewer()
        let worker = Worker.run(name: "fetchplay watch listen", stage: .playback) { [self] in acceptLoop() }
        accepting.withLock { $0 = worker }
    }

    deinit { close() }

    /// Whether the player waits for a segment the download has not brought yet (the window
    /// shows it is waiting).
    public var isWaiting: Bool { waiting.withLock { $0 > 0 } }

    /// Stops serving: every request ends within a quarter of a second. A presentation whose
    /// download finished meanwhile loses its segments now, if no other player reads them.
    public func close() {
        guard !closed.isRaised else { return }
        closed.raise()
        connections.stop()
        board.removeViewer()
    }

    private func acceptLoop() {
        while !closed.isRaised {
            guard let client = listener.accept() else { continue }
            connections.submit(.skippable) { [self] in serve(client) }
        }
    }

    // MARK: One connection

    /// Answers the requests of one connection, one after the other (HTTP/1.1 keep-alive), until
    /// the player closes it or the server closes.
    private func serve(_ socket: LoopbackSocket) {
        var buffer: [UInt8] = []
        while !closed.isRaised {
            guard let end = buffer.firstRange(of: [13, 10, 13, 10]) else {
                guard buffer.count < Self.headLimit, let more = socket.receive(upTo: 4096) else { return }
                buffer += more
                continue
            }
            let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<end.upperBound)
            guard answer(head, on: socket) else { return }
        }
    }

    /// Answers one request; false when the connection is over.
    private func answer(_ head: String, on socket: LoopbackSocket) -> Bool {
        // "\r\n" is one Character in Swift: the request line ends at it.
        let words = (head.split(separator: "\r\n", maxSplits: 1).first ?? "").split(separator: " ")
        guard words.count == 3, words[0] == "GET" || words[0] == "HEAD" else { return respond(405, on: socket) }
        let prefix = "/" + token + "/"
        let target = words[1].split(separator: "?", maxSplits: 1).first ?? ""
        guard target.hasPrefix(prefix), let resource = WatchPlaylist.Resource(path: target.dropFirst(prefix.count)),
              let stream = board.stream else { return respond(404, on: socket) }
        let bodyWanted = words[0] == "GET"
        switch resource {
        case .master:
            return respond(200, type: "application/vnd.apple.mpegurl", body: Array(WatchPlaylist.master(trackCount: stream.tracks.count).utf8),
                           bodyWanted: bodyWanted, on: socket)
        case .playlist(let track):
            guard stream.tracks.indices.contains(track) else { return respond(404, on: socket) }
            return respond(200, type: "application/vnd.apple.mpegurl", body: Array(WatchPlaylist.media(stream.tracks[track], index: track).utf8),
                           bodyWanted: bodyWanted, on: socket)
        case .initSection(let track, let index):
            guard let piece = stream.piece(track: track, section: index) else { return respond(404, on: socket) }
            return deliver(piece, from: stream.start(track: track, section: index), track: track, filler: .mp4,
                           bodyWanted: bodyWanted, on: socket)
        case .segment(let track, let index):
            guard let piece = stream.piece(track: track, segment: index) else { return respond(404, on: socket) }
            let filler = Filler(stream.tracks[track], url: piece.url)
            return deliver(piece, from: stream.starts[track][index], track: track, filler: filler, bodyWanted: bodyWanted, on: socket)
        }
    }

    /// Sends a piece in the clear: at once with its length when it is on disk; else the answer
    /// begins now (chunked) and the piece follows when the download has it.
    private func deliver(_ piece: SegmentFeed.Piece, from start: Double, track: Int, filler: Filler,
                         bodyWanted: Bool, on socket: LoopbackSocket) -> Bool {
        var stream = board.stream
        if let stream, stream.store.location(of: piece.stored) != nil {
            guard let bytes = try? SegmentFeed.clearBytes(of: piece, store: stream.store, keys: stream.keys) else {
                return respond(503, on: socket)
            }
            return respond(200, type: filler.type, body: bytes, bodyWanted: bodyWanted, on: socket)
        }
        guard bodyWanted else { return respond(200, type: filler.type, body: [], bodyWanted: false, on: socket) }
        board.want(seconds: start, track: track)
        guard socket.send(Array("HTTP/1.1 200 OK\r\nContent-Type: \(filler.type)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else { return false }
        waiting.withLock { $0 += 1 }
        defer { waiting.withLock { $0 -= 1 } }
        // Bytes of the piece sent as they arrived (a piece in the clear, in a file of its own).
        var sent = 0
        let flows = piece.key == nil
        let look = flows ? 0.05 : 0.25
        var quiet = 0.0
        while true {
            // The latest run's store: a continue after a pause is another run.
            stream = board.stream ?? stream
            guard let current = stream else { return false }
            if current.store.wait(for: piece.stored, timeout: look) { break }
            guard !closed.isRaised, !socket.isClosedByPeer else { return false }
            if flows {
                // A file shorter than what went out was begun again (another answer): this
                // answer cannot go on; the demuxer asks again.
                guard let more = Self.arrived(piece.stored, in: current.store, after: sent) else { return false }
                if !more.isEmpty {
                    guard socket.send(Self.chunk(more)) else { return false }
                    sent += more.count
                    quiet = 0
                    continue
                }
            }
            quiet += look
            if quiet >= 1 {
                quiet = 0
                // Asked again: a new run (a continue) starts from the pieces in playing order.
                board.want(seconds: start, track: track)
                // Filler only between boxes: never once the piece's own bytes have begun. An
                // empty chunk would end the answer: packed audio waits silent.
                if sent == 0, !filler.bytes.isEmpty, !socket.send(Self.chunk(filler.bytes)) { return false }
            }
        }
        guard let current = stream, let bytes = try? SegmentFeed.clearBytes(of: piece, store: current.store, keys: current.keys),
              bytes.count >= sent else {
            return false
        }
        let rest = Array(bytes.dropFirst(sent))
        return socket.send((rest.isEmpty ? [] : Self.chunk(rest)) + Array("0\r\n\r\n".utf8))
    }

    /// The bytes of `piece`'s own file in the store past the first `sent`, as far as written
    /// (at most a MiB at a time); nil when the file holds fewer than `sent` (it was begun again).
    private static func arrived(_ piece: StreamPiece, in store: SegmentStore, after sent: Int) -> [UInt8]? {
        let path = store.path(of: piece.id)
        guard let size = FileIO.size(of: path) else { return sent == 0 ? [] : nil }
        guard size >= Int64(sent) else { return nil }
        let count = Int(min(size - Int64(sent), 1 << 20))
        guard count > 0, let fd = try? FileIO.open(path, O_RDONLY) else { return [] }
        defer { FileIO.close(fd) }
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = max(0, pread(fd, buffer.baseAddress, count, off_t(sent)))
        }
        return bytes
    }

    private static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
    }

    /// Sends a whole answer; false when the connection is over.
    private func respond(_ status: Int, type: String = "text/plain", body: [UInt8] = [], bodyWanted: Bool = true,
                         on socket: LoopbackSocket) -> Bool {
        let reason = [200: "OK", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"][status] ?? "Error"
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n\r\n"
        return socket.send(Array(head.utf8) + (bodyWanted ? body : [])) && status != 405
    }

    /// What keeps a waiting answer alive: bytes the track's demuxer reads past.
    enum Filler {
        /// An empty ISO BMFF `free` box, which MP4 readers skip.
        case mp4
        /// An MPEG-TS null packet (PID 0x1FFF), which TS demuxers drop.
        case ts
        /// Nothing that a demuxer would skip (packed audio): the answer waits silent.
        case none

        init(_ track: StreamTrack, url: String) {
            if !track.sections.isEmpty {
                self = .mp4
            } else {
                self = WatchPlaylist.extensionOf(url, initSection: false, fragmented: false) == "ts" ? .ts : .none
            }
        }

        var bytes: [UInt8] {
            switch self {
            case .mp4: SegmentFeed.trailingBox
            case .ts: [0x47, 0x1F, 0xFF, 0x10] + [UInt8](repeating: 0xFF, count: 184)
            case .none: []
            }
        }

        var type: String {
            switch self {
            case .mp4: "video/mp4"
            case .ts: "video/mp2t"
            case .none: "application/octet-stream"
            }
        }
    }
}

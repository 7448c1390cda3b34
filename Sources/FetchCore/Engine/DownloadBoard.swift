import Foundation
import Glibc
import ThreadKit

/// What a download has on disk at this moment, for readers on other threads: a player that plays
/// the video while it downloads reads through a `PartialReader` on this board.
///
/// The writer (the download's worker) publishes the data file and the ranges written into it
/// after every write; a reader waits here (never on the main thread) until the byte it needs is
/// there, or the download stops. A download that starts over writes another version of the
/// file: the generation changes, and readers of the old one learn it.
public final class DownloadBoard: Sendable {
    struct Snapshot: Sendable {
        /// The file the bytes are in (the partial's data file, then the finished video).
        var path: String?
        var ranges = ByteRanges()
        var total: Int64?
        /// Counts the versions of the file: a restart from zero is a new one.
        var generation = 0
        /// Bytes may still arrive (a worker runs, or waits for a slot).
        var isRunning = false
    }

    private let snapshot = Locked(Snapshot())
    /// Where a reader wants bytes first (a seek ahead); the worker takes it.
    private let wanted = Locked<Int64?>(nil)
    /// Where a viewer of an HLS or DASH presentation wants to watch from (seconds), each track's
    /// own or every track's (nil), in the order asked; the presentation's pool takes them.
    private let wantedTimes = Locked<[WantedTime]>([])
    /// An HLS or DASH presentation's tracks and segments, as its latest run published them.
    private let watchable = Locked<WatchableStream?>(nil)
    /// Players watching the presentation (`WatchServer`s), and the removal of its segments
    /// that waits for the last of them to go.
    private let viewers = Locked<(count: Int, removal: (@Sendable () -> Void)?)>((0, nil))

    public init() {}

    var current: Snapshot { snapshot.withLock { $0 } }

    // MARK: The writer

    func publish(path: String, ranges: ByteRanges, total: Int64?, newVersion: Bool = false) {
        update {
            $0.path = path
            $0.ranges = ranges
            $0.total = total
            $0.isRunning = true
            if newVersion { $0.generation += 1 }
        }
    }

    func setRunning(_ running: Bool) { update { $0.isRunning = running } }

    /// Publishes a presentation's run: from now on a player can watch it (`stream`).
    func publish(_ stream: WatchableStream) { watchable.withLock { $0 = stream } }

    /// Removes the presentation's segments now, or when the last player watching them goes
    /// (the video is whole in the videos folder by then: only they still read the segments).
    func retire(_ removal: @escaping @Sendable () -> Void) {
        let now = viewers.withLock { viewers -> Bool in
            guard viewers.count > 0 else { return true }
            viewers.removal = removal
            return false
        }
        if now { removal() }
    }

    /// A player started watching the presentation (`WatchServer`).
    func addViewer() { viewers.withLock { $0.count += 1 } }

    /// A player stopped watching: the last one carries out a removal that waited for it.
    func removeViewer() {
        let removal = viewers.withLock { viewers -> (@Sendable () -> Void)? in
            viewers.count -= 1
            guard viewers.count == 0 else { return nil }
            defer { viewers.removal = nil }
            return viewers.removal
        }
        removal?()
    }

    /// What was on disk before any worker of this process ran (a partial left by an earlier
    /// run, or the finished video), so that readers can play it offline; ignored once a worker
    /// has published.
    func seed(path: String, ranges: ByteRanges, total: Int64?) {
        update { snapshot in
            guard snapshot.path == nil, !snapshot.isRunning else { return }
            snapshot.path = path
            snapshot.ranges = ranges
            snapshot.total = total
        }
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        snapshot.withLockAndNotify(change)
    }

    /// The offset a reader asked for first since the last call, if any.
    func takeWantedOffset() -> Int64? { wanted.withLock { value in defer { value = nil }; return value } }

    /// The times a viewer asked for since the last call, oldest first.
    func takeWantedTimes() -> [WantedTime] { wantedTimes.withLock { value in defer { value = [] }; return value } }

    // MARK: Readers

    /// An HLS or DASH download's tracks and segments, once a run published them.
    public var stream: WatchableStream? { watchable.withLock { $0 } }

    /// Asks the download to fetch the bytes from `offset` next (a connection starts there at once
    /// when the server allows ranges); the rest continues after.
    public func want(_ offset: Int64) {
        wanted.withLock { $0 = offset }
    }

    /// Asks an HLS or DASH download for the segments from `seconds` on next, before any others
    /// (a viewer's seek ahead); those skipped over come after, so the saved video is whole.
    /// `track` is the index of the one track whose segment a player asked for: each track of a
    /// presentation is read by its own part of the player, and their positions differ (the
    /// audio's runs ahead, its segments being small).
    public func want(seconds: Double, track: Int? = nil) {
        wantedTimes.withLock { times in
            // A pool that is not running takes none: only the latest few matter.
            times = times.suffix(15) + [WantedTime(seconds: seconds, track: track)]
        }
    }

    /// Waits up to `timeout` seconds for the byte at `offset`, and returns the snapshot then.
    func wait(for offset: Int64, timeout: Double) -> Snapshot {
        snapshot.wait(until: { now in
            now.ranges.contains(offset) || !now.isRunning || now.total.map { offset >= $0 } == true
        }, timeout: timeout) { $0 }
    }
}

/// Reads a video while it downloads: bytes come from the board's file once they are written.
///
/// Not thread-safe: one reader per streaming thread (GStreamer's `appsrc` calls from one).
public final class PartialReader {
    public enum ReadError: Error, Equatable {
        /// The bytes are not on disk and no download is running to bring them (offline, paused).
        case notDownloaded
        /// The download started over with another version of the file.
        case changed
        case fileSystem(String)
    }

    private let board: DownloadBoard
    private var descriptor: Int32 = -1
    private var openedPath: String?
    private var generation: Int?

    public init(board: DownloadBoard) { self.board = board }

    deinit { if descriptor >= 0 { FileIO.close(descriptor) } }

    /// The whole file's length, when known.
    public var total: Int64? { board.current.total }

    /// Up to `count` bytes from `offset`, waiting up to `timeout` seconds for the first of them;
    /// fewer when the bytes written end sooner. Empty at the end of the file, or when nothing
    /// arrived within `timeout` while the download runs (ask again).
    public func read(at offset: Int64, count: Int, timeout: Double) throws(ReadError) -> [UInt8] {
        board.want(offset)
        let now = board.wait(for: offset, timeout: timeout)
        if let total = now.total, offset >= total { return [] }
        if let generation, generation != now.generation { throw .changed }
        generation = now.generation
        guard let range = now.ranges.ranges.first(where: { $0.contains(offset) }), let path = now.path else {
            if now.isRunning { return [] }  // still coming: the caller asks again
            throw .notDownloaded
        }
        try open(path)
        let length = Int(min(Int64(count), range.upperBound - offset))
        var bytes = [UInt8](repeating: 0, count: length)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(offset)) }
        guard got >= 0 else { throw .fileSystem(String(cString: strerror(errno))) }
        return Array(bytes.prefix(got))
    }

    /// Opens `path` when it is not the file already open (a finished video moved into the
    /// videos folder is the same file under another name; the open descriptor stays valid).
    private func open(_ path: String) throws(ReadError) {
        guard path != openedPath else { return }
        do {
            let fd = try FileIO.open(path, O_RDONLY)
            if descriptor >= 0 { FileIO.close(descriptor) }
            descriptor = fd
            openedPath = path
        } catch {
            if descriptor >= 0 { return }  // moved away meanwhile: the open one still reads
            throw .fileSystem(error.message)
        }
    }
}

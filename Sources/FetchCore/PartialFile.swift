import CLinux
import Dispatch
import Foundation
import Glibc
import Synchronization

/// One URL's partial download on disk: the lock, the bytes, and the record that vouches for them.
///
/// The writer (the transfer's thread) only appends. Every `checkpointInterval` a checkpoint on
/// a queue of its own syncs the bytes written so far and only then records their count, so the
/// record never claims bytes the disk may not have, and the transfer never waits for the disk.
///
/// A download that starts over while an older partial exists writes into `KEY.new`; the first
/// checkpoint past the old partial's length renames it over `KEY.part`. Until then a crash
/// leaves the old partial, whole and still resumable.
final class PartialFile: @unchecked Sendable {
    let cache: Cache
    let key: String
    private let lock: PartialLock
    private let checkpoints = DispatchQueue(label: "fetchplay.checkpoint")
    /// Guards everything below that the checkpoint queue also touches.
    private let guarded: Mutex<Guarded>

    private struct Guarded {
        var record: DownloadRecord
        /// The identity of a restarted download still writing to `KEY.new`.
        var pendingRecord: DownloadRecord?
        var checkpointError: DownloadError?
        var checkpointInFlight = false
    }

    // Writer-thread state.
    private var descriptor: Int32 = -1
    private var writingPath = ""
    /// Bytes in the file being written (from byte 0 of that file).
    private(set) var length: Int64 = 0
    private var lastCheckpoint = 0.0
    /// Where the last early writeback request ended.
    private var writebackStart: Int64 = 0
    /// Bytes between early writeback requests.
    private let writebackStep: Int64 = 8 << 20

    /// Takes the lock on `url`'s partial, or throws `.busy` when another writer holds it.
    init(cache: Cache, url: String, displayName: String) throws(DownloadError) {
        self.cache = cache
        key = Cache.key(for: url)
        lock = try PartialLock(cache: cache, key: key)
        let record = cache.loadRecord(at: cache.partialPath(key, "json"), key: key)
            ?? DownloadRecord(url: url, displayName: displayName)
        guarded = Mutex(Guarded(record: record))
        // A restart that never passed the old partial is worthless now.
        FileIO.remove(cache.partialPath(key, "new"))
    }

    deinit {
        closeDescriptor()
    }

    var record: DownloadRecord { guarded.withLock { $0.record } }

    /// Bytes of the current download identity that are on disk, vouched for by the record.
    var durableBytes: Int64 { record.durableBytes }

    // MARK: Starting an attempt

    /// Opens `KEY.part` to append after its durable bytes; anything past them (written after the
    /// last checkpoint) is cut, since a power cut may have left it unwritten. Returns the offset.
    func openForAppend() throws(DownloadError) -> Int64 {
        closeDescriptor()
        // Continuing the old partial ends any restart that had not passed it yet: its `.new`
        // bytes must never be swapped in over what is appended now.
        guarded.withLock { $0.pendingRecord = nil }
        FileIO.remove(cache.partialPath(key, "new"))
        let path = cache.partialPath(key, "part")
        let fd = try FileIO.open(path, O_RDWR | O_CREAT)
        var durable = durableBytes
        if (FileIO.size(of: path) ?? 0) < durable {
            // The file lost bytes its record vouched for: it cannot be trusted at all.
            Log.warning("partial \(path) is shorter than its record; starting over")
            durable = 0
            guarded.withLock { $0.record.durableBytes = 0 }
        }
        do {
            try FileIO.truncate(fd, to: durable, path: path)
            try FileIO.seek(fd, to: durable, path: path)
        } catch {
            close(fd)
            throw error
        }
        descriptor = fd
        writingPath = path
        length = durable
        writebackStart = durable
        lastCheckpoint = monotonicSeconds()
        return durable
    }

    /// Prepares for a body that is the whole file from byte 0, with a new identity.
    func openFresh(_ identity: DownloadRecord) throws(DownloadError) {
        closeDescriptor()
        let keepOld = durableBytes > 0
        let path = cache.partialPath(key, keepOld ? "new" : "part")
        descriptor = try FileIO.open(path, O_RDWR | O_CREAT | O_TRUNC)
        writingPath = path
        length = 0
        writebackStart = 0
        lastCheckpoint = monotonicSeconds()
        guarded.withLock {
            if keepOld {
                $0.pendingRecord = identity
            } else {
                $0.record = identity
            }
        }
    }

    /// Throws away a fresh start that turned out unusable (a web page, not a video) before
    /// any of it was vouched for: its file goes, and an older partial stays as it was.
    func discardFresh() {
        closeDescriptor()
        let hadPending = guarded.withLock { state -> Bool in
            defer { state.pendingRecord = nil }
            return state.pendingRecord != nil
        }
        if hadPending {
            FileIO.remove(cache.partialPath(key, "new"))
        } else if durableBytes == 0 {
            for suffix in ["part", "json"] { FileIO.remove(cache.partialPath(key, suffix)) }
        }
        length = 0
    }

    /// Keeps why this run failed in the record, so the library shows it after a restart too;
    /// nil clears it. Only a partial that has a record (durable bytes) keeps a failure.
    func noteFailure(_ message: String?) {
        let next = guarded.withLock { state -> DownloadRecord? in
            guard state.record.durableBytes > 0, state.record.failure != message else { return nil }
            state.record.failure = message
            return state.record
        }
        guard let next else { return }
        do {
            try cache.saveRecord(next, at: cache.partialPath(key, "json"))
        } catch {
            Log.warning("cannot keep the failure in \(cache.partialPath(key, "json")): \(error.message)")
        }
    }

    // MARK: Writing

    /// Appends `bytes`; starts a checkpoint when one is due and none is running.
    func write(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        if let error = guarded.withLock({ $0.checkpointError }) { throw error }
        try FileIO.writeAll(descriptor, bytes, path: writingPath)
        length += Int64(bytes.count)
        if length - writebackStart >= writebackStep {
            // Hand the kernel each few megabytes as they arrive, so a checkpoint's fdatasync
            // waits only for the tail instead of a whole second of a fast download at once.
            _ = fp_start_writeback(descriptor, off_t(writebackStart), off_t(length - writebackStart))
            writebackStart = length
        }
        let now = monotonicSeconds()
        if now - lastCheckpoint >= checkpointInterval {
            lastCheckpoint = now
            scheduleCheckpoint()
        }
    }

    var checkpointInterval = 1.0

    private func scheduleCheckpoint() {
        let start = guarded.withLock { state -> Bool in
            if state.checkpointInFlight { return false }
            state.checkpointInFlight = true
            return true
        }
        guard start else { return }
        let fd = descriptor, count = length, path = writingPath
        checkpoints.async { [self] in
            do {
                try checkpoint(fd: fd, count: count, path: path)
            } catch {
                guarded.withLock { $0.checkpointError = error as? DownloadError ?? .fileSystem("\(error)") }
            }
            guarded.withLock { $0.checkpointInFlight = false }
        }
    }

    /// Syncs the first `count` bytes, then records them (swapping in a restarted download once
    /// it has passed the old partial).
    private func checkpoint(fd: Int32, count: Int64, path: String) throws(DownloadError) {
        try FileIO.dataSync(fd, path: path)
        let next: DownloadRecord? = try guarded.withLock { (state) throws(DownloadError) -> DownloadRecord? in
            if var pending = state.pendingRecord {
                guard count > state.record.durableBytes else { return nil }
                try FileIO.rename(cache.partialPath(key, "new"), cache.partialPath(key, "part"))
                // From here `.part` is the restarted download; its bytes count as durable only
                // once its record is saved below.
                pending.durableBytes = 0
                state.pendingRecord = nil
                state.record = pending
            } else {
                guard count > state.record.durableBytes || count == 0 else { return nil }
            }
            var next = state.record
            next.durableBytes = count
            return next
        }
        guard let next else { return }
        try cache.saveRecord(next, at: cache.partialPath(key, "json"))
        // Only a saved record moves the durable count: a failed save (a full disk) leaves the
        // count at what the disk really vouches for.
        guarded.withLock { $0.record.durableBytes = max($0.record.durableBytes, count) }
    }

    /// Waits for a running checkpoint, then makes everything written so far durable.
    ///
    /// On a full disk the record itself may not fit: then the last `diskFullMargin` bytes are
    /// given back (they download again) so that everything before them can still be vouched for.
    /// A checkpoint's earlier error is thrown after that.
    func flush() throws(DownloadError) {
        checkpoints.sync {}
        guard descriptor >= 0 else { return }
        let earlier = guarded.withLock { state -> DownloadError? in
            defer { state.checkpointError = nil }
            return state.checkpointError
        }
        do {
            try checkpoint(fd: descriptor, count: length, path: writingPath)
        } catch .diskFull {
            // Never below what the record already vouches for: those bytes need no new record.
            let keep = max(durableBytes, length - diskFullMargin)
            try FileIO.truncate(descriptor, to: keep, path: writingPath)
            length = keep
            try checkpoint(fd: descriptor, count: keep, path: writingPath)
            throw .diskFull
        }
        if let earlier { throw earlier }
    }

    /// Bytes given back on a full disk so the record fits: far more than a record needs.
    private let diskFullMargin: Int64 = 256 * 1024

    /// Moves the whole file into the videos folder; the partial and its record go. Returns the
    /// finished record and the video's path.
    ///
    /// Order matters for crashes: the finished record first (it counts only once a file of its
    /// length exists), then the rename, then the folder sync, then the partial's record.
    func complete(finalURL: String?) throws(DownloadError) -> (DownloadRecord, String) {
        if descriptor < 0 {
            // Completed without a body (a 416, or all bytes already durable): cut anything
            // past the durable bytes, which no checkpoint vouched for.
            _ = try openForAppend()
        }
        checkpoints.sync {}
        try FileIO.dataSync(descriptor, path: writingPath)
        let count = length
        closeDescriptor()
        let pending = guarded.withLock { state -> DownloadRecord? in
            defer { state.pendingRecord = nil }
            return state.pendingRecord
        }
        if pending != nil {
            try FileIO.rename(cache.partialPath(key, "new"), cache.partialPath(key, "part"))
        }
        var final = pending ?? record
        final.durableBytes = count
        final.total = final.total ?? count
        final.finalURL = finalURL ?? final.finalURL
        final.completed = Date()
        let destination = cache.videoPath(key, url: final.url)
        try cache.saveRecord(final, at: cache.videoRecordPath(key))
        try FileIO.rename(cache.partialPath(key, "part"), destination)
        try FileIO.syncDirectory(cache.videosDirectory)
        FileIO.remove(cache.partialPath(key, "json"))
        try FileIO.syncDirectory(cache.partialDirectory)
        guarded.withLock { $0.record = final }
        return (final, destination)
    }

    private func closeDescriptor() {
        if descriptor >= 0 {
            checkpoints.sync {}
            close(descriptor)
            descriptor = -1
        }
    }
}

import CLinux
import Foundation
import Localization
import Glibc
import ThreadKit

/// One URL's partial download on disk: the lock, the data file, and the record that vouches for
/// byte ranges of it.
///
/// Several connections write into one data file at their own offsets (`store(_:at:)`, all on the
/// download's worker thread), and count what they wrote with `commit(_:)` once per turn of the
/// download's multi handle. Every `checkpointInterval` a checkpoint on a queue of its own syncs
/// the file and only then records the ranges written so far, so the record never claims bytes
/// the disk may not have, and the writers never wait for the disk.
///
/// A download that starts over while an older partial exists writes into a new data file
/// (`KEY.<generation>.part`); the first checkpoint past the old partial's byte count saves a
/// record naming the new file, and only then removes the old one. No rename stands between a
/// record and its bytes: after a crash the record names exactly the file it vouches for, and
/// files it does not name are removed when the partial is next opened.
final class PartialFile: @unchecked Sendable {
    let cache: Cache
    let key: String
    private let lock: PartialLock
    /// Syncs and records off the writing thread, in order; the process's shutdown joins it in its
    /// `.checkpoints` stage, after the downloads that queue them.
    private let checkpoints = Worker(name: "fetchplay checkpoint", stage: .checkpoints)
    /// Guards everything below that the checkpoint queue also touches.
    private let guarded: Locked<Guarded>

    private struct Guarded {
        /// The saved record: what the disk vouches for.
        var record: DownloadRecord
        /// The identity of a restarted download still writing a file of its own.
        var pendingRecord: DownloadRecord?
        var checkpointError: DownloadError?
        var checkpointInFlight = false
        var writebackQueued = false
    }

    // Writer-thread state.
    private var descriptor: Int32 = -1
    /// The name (in `partial/`) of the data file being written.
    private var writingName = ""
    /// Every range written into that file (a superset of what the record vouches for).
    private(set) var written = ByteRanges()
    private var lastCheckpoint = 0.0
    /// Bytes written since writeback was last started.
    private var unsubmitted: Int64 = 0
    /// Bytes between early writeback requests: small enough that the sync at the end waits
    /// for little more than a journal commit, large enough to be a few requests a second.
    private let writebackStep: Int64 = 2 << 20

    /// Where readers on other threads see what is written (a player playing while it downloads).
    let board: DownloadBoard

    /// Takes the lock on `url`'s partial, or throws `.busy` when another writer holds it.
    init(cache: Cache, url: String, displayName: String, board: DownloadBoard = DownloadBoard()) throws(DownloadError) {
        self.cache = cache
        self.board = board
        key = Cache.key(for: url)
        lock = try PartialLock(cache: cache, key: key)
        let record = cache.loadRecord(at: cache.partialPath(key, "json"), key: key)
            ?? DownloadRecord(url: url, displayName: displayName)
        guarded = Locked(Guarded(record: record))
        // Data files the record does not name are worthless: a restart that never passed the old
        // partial, an old file a crash left beside the new record.
        let named = record.durableBytes > 0 ? dataPath(of: record) : nil
        for path in cache.dataFiles(key: key) where path != named { FileIO.remove(path) }
    }

    deinit {
        closeDescriptor()
    }

    /// The saved record: what the disk vouches for.
    var record: DownloadRecord { guarded.withLock { $0.record } }

    /// The version of the file being written: a restart's new identity while it has not yet
    /// passed the old partial, else the record's. Extra connections ask for this version.
    var identity: DownloadRecord { guarded.withLock { $0.pendingRecord ?? $0.record } }

    /// Bytes of the current download identity that are on disk, vouched for by the record.
    var durableBytes: Int64 { record.durableBytes }

    /// Bytes written into the file being written, durable or not yet.
    var length: Int64 { written.count }

    private func dataPath(of record: DownloadRecord) -> String { cache.partialDirectory + "/" + record.dataFileName(key: key) }

    // MARK: Starting an attempt

    /// Opens the record's data file to write the ranges it lacks. A file shorter than its
    /// record's ranges lost bytes and is not trusted at all. Returns the ranges on disk.
    @discardableResult
    func openForAppend() throws(DownloadError) -> ByteRanges {
        if descriptor >= 0, guarded.withLock({ $0.pendingRecord == nil }) { return written }
        closeDescriptor()
        // Continuing the old partial ends any restart that had not passed it yet: its bytes
        // must never be swapped in over what is written now.
        let abandoned = guarded.withLock { state -> DownloadRecord? in
            defer { state.pendingRecord = nil }
            return state.pendingRecord
        }
        if let abandoned { FileIO.remove(dataPath(of: abandoned)) }
        let current = record
        let path = dataPath(of: current)
        let fd = try FileIO.open(path, O_RDWR | O_CREAT)
        var durable = current.durable
        if (FileIO.size(of: path) ?? 0) < durable.upperBound {
            Log.warning("partial \(path) is shorter than its record; starting over")
            durable = ByteRanges()
            guarded.withLock { $0.record.durable = durable }
        }
        descriptor = fd
        writingName = (path as NSString).lastPathComponent
        written = durable
        unsubmitted = 0
        lastCheckpoint = monotonicSeconds()
        board.publish(path: path, ranges: durable, total: current.total)
        return durable
    }

    /// Prepares for a body that is the whole file from byte 0, with a new identity, in a new
    /// data file. An older partial stays until the new one has more bytes.
    func openFresh(_ identity: DownloadRecord) throws(DownloadError) {
        closeDescriptor()
        let name = "\(key).\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).part"
        descriptor = try FileIO.open(cache.partialDirectory + "/" + name, O_RDWR | O_CREAT | O_EXCL)
        writingName = name
        written = ByteRanges()
        unsubmitted = 0
        lastCheckpoint = monotonicSeconds()
        var fresh = identity
        fresh.dataFile = name
        fresh.durable = ByteRanges()
        let obsolete = guarded.withLock { state -> [DownloadRecord] in
            // An earlier restart that never passed the old partial is worthless now.
            var obsolete = state.pendingRecord.map { [$0] } ?? []
            if state.record.durableBytes > 0 {
                state.pendingRecord = fresh
            } else {
                obsolete.append(state.record)
                state.pendingRecord = nil
                state.record = fresh
            }
            return obsolete
        }
        for old in obsolete where old.dataFileName(key: key) != name { FileIO.remove(dataPath(of: old)) }
        board.publish(path: cache.partialDirectory + "/" + name, ranges: written, total: identity.total, newVersion: true)
    }

    /// Throws away an answer that turned out unusable (a web page, not a video): a fresh
    /// start's file goes, and so does a partial nothing vouches for as media (no bytes, or first
    /// bytes a pause kept unjudged); an older partial of judged media stays as it was.
    func discardFresh() {
        closeDescriptor()
        let pending = guarded.withLock { state -> DownloadRecord? in
            defer { state.pendingRecord = nil }
            return state.pendingRecord
        }
        if let pending { FileIO.remove(dataPath(of: pending)) }
        if durableBytes == 0 || record.unjudged == true {
            FileIO.remove(dataPath(of: record))
            FileIO.remove(cache.partialPath(key, "json"))
            // No partial is left to note a failure in.
            guarded.withLock { $0.record.durable = ByteRanges() }
        }
        written = ByteRanges()
    }

    /// Notes that the first bytes of the version being written are judged media, of the type
    /// they show (nil: none they name). Saved with the next checkpoint, which the bytes written
    /// after the judgement bring.
    func noteJudged(mediaType: String?) {
        guarded.withLock { state in
            if state.pendingRecord != nil {
                state.pendingRecord?.unjudged = nil
                state.pendingRecord?.sniffedType = mediaType
            } else {
                state.record.unjudged = nil
                state.record.sniffedType = mediaType
            }
        }
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

    /// Reserves the disk blocks of the whole file, `total` bytes, once its length is known and
    /// the free space was found enough: the disk cannot fill under the download any more, the
    /// file lies in few extents, and each write skips the filesystem's delayed allocation
    /// (measured on ext4: a third less time writing 64 MiB). The size stays what was written,
    /// so a partial still reads as before. Best effort: where the filesystem cannot, or the
    /// space went meanwhile, the blocks are taken as the bytes come, and a full disk is met as
    /// it always was.
    func reserve(total: Int64) {
        guard descriptor >= 0, total > 0 else { return }
        guard fp_reserve(descriptor, 0, off_t(total)) != 0, errno == ENOSPC else { return }
        // ext4 keeps what a failed reservation took. Within the file's size, past the written
        // bytes, it goes by punching; past the end (where punching does nothing) by truncating
        // the file to the size it has, which frees the blocks beyond it.
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let size = Int64(info.st_size), end = written.upperBound
        if end < size { _ = fp_punch_hole(descriptor, off_t(end), off_t(size - end)) }
        _ = ftruncate(descriptor, off_t(size))
    }

    // MARK: Writing

    /// Up to `count` bytes written at `offset` of the file being written, read back (fewer at
    /// its end; none on an error). On the writer's thread.
    func readBack(at offset: Int64, count: Int) -> [UInt8] {
        guard descriptor >= 0, count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return got > 0 ? Array(bytes.prefix(got)) : []
    }

    /// Writes `bytes` at `offset` of the data file, without counting them as written yet:
    /// `commit` does, for many pieces at once.
    func store(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        do {
            try FileIO.writeAll(descriptor, bytes, at: offset, path: writingName)
        } catch {
            // A write cut short (a full disk) may have taken blocks for bytes no range counts:
            // they go back, so that a record of the rest still fits. Never a byte already
            // written: a lone connection rewrites the ranges after a hole, and those stay.
            let attempted = ByteRanges([offset..<(offset + Int64(bytes.count))])
            for range in attempted.subtracting(written).ranges {
                _ = fp_punch_hole(descriptor, off_t(range.lowerBound), off_t(range.upperBound - range.lowerBound))
            }
            throw error
        }
    }

    /// Counts `range`, stored before, as written: readers may read it, and the next checkpoint
    /// makes it durable; starts a checkpoint when one is due and none is running.
    func commit(_ range: Range<Int64>) throws(DownloadError) {
        if let error = guarded.withLock({ $0.checkpointError }) { throw error }
        written.insert(range)
        board.publish(path: cache.partialDirectory + "/" + writingName, ranges: written, total: identity.total)
        unsubmitted += range.upperBound - range.lowerBound
        if unsubmitted >= writebackStep {
            // Hand the kernel each few megabytes as they arrive, so a checkpoint's fdatasync
            // waits only for the tail instead of a whole second of a fast download at once.
            unsubmitted = 0
            startWriteback()
        }
        let now = monotonicSeconds()
        if now - lastCheckpoint >= checkpointInterval {
            lastCheckpoint = now
            scheduleCheckpoint()
        }
    }

    var checkpointInterval = 1.0

    /// Starts the writeback of what is written, on the checkpoint queue rather than here:
    /// starting it does the block layer's work in the caller, a tenth of an unthrottled
    /// download's CPU, which the writer's thread spends receiving instead. One request waits
    /// at most; the queue is drained before the descriptor closes, so it never outlives it.
    private func startWriteback() {
        let queue = guarded.withLock { state -> Bool in
            defer { state.writebackQueued = true }
            return !state.writebackQueued
        }
        guard queue else { return }
        let fd = descriptor
        checkpoints.submitOrRunHere { [self] in
            guarded.withLock { $0.writebackQueued = false }
            _ = fp_start_writeback(fd, 0, 0)
        }
    }

    private func scheduleCheckpoint() {
        let start = guarded.withLock { state -> Bool in
            if state.checkpointInFlight { return false }
            state.checkpointInFlight = true
            return true
        }
        guard start else { return }
        let fd = descriptor, snapshot = written, name = writingName
        checkpoints.submitOrRunHere { [self] in
            do {
                try checkpoint(fd: fd, ranges: snapshot, name: name)
            } catch {
                guarded.withLock { $0.checkpointError = error as? DownloadError ?? .fileSystem("\(error)") }
            }
            guarded.withLock { $0.checkpointInFlight = false }
        }
    }

    /// Syncs the file, then records `ranges` as durable (swapping in a restarted download once
    /// it holds more bytes than the old partial, and only then removing the old file).
    private func checkpoint(fd: Int32, ranges: ByteRanges, name: String) throws(DownloadError) {
        try FileIO.dataSync(fd, path: name)
        let (next, replaced) = guarded.withLock { state -> (DownloadRecord?, DownloadRecord?) in
            if let pending = state.pendingRecord, pending.dataFile == name {
                guard ranges.count > state.record.durableBytes else { return (nil, nil) }
                var next = pending
                next.durable = ranges
                return (next, state.record)
            }
            // A record is written only for bytes: a partial of nothing is no partial.
            guard state.record.dataFileName(key: key) == name, !ranges.isEmpty, ranges != state.record.durable else {
                return (nil, nil)
            }
            var next = state.record
            next.durable = ranges
            return (next, nil)
        }
        guard let next else { return }
        if replaced != nil { CrashPoint.beforeReplacingRecord.reach() }
        try cache.saveRecord(next, at: cache.partialPath(key, "json"))
        if replaced != nil { CrashPoint.afterReplacingRecord.reach() }
        // Only a saved record moves what is durable: a failed save (a full disk) leaves the
        // record at what the disk really vouches for.
        guarded.withLock { state in
            if replaced != nil { state.pendingRecord = nil }
            state.record = next
        }
        if let replaced, replaced.durableBytes > 0 { FileIO.remove(dataPath(of: replaced)) }
    }

    /// Waits for a running checkpoint, then makes everything written so far durable.
    ///
    /// On a full disk the record itself may not fit: then the last `diskFullMargin` bytes of
    /// each range written since the last record are given back (their blocks freed; they
    /// download again) so that everything before them can still be vouched for. A checkpoint's
    /// earlier error is thrown after that.
    func flush() throws(DownloadError) {
        checkpoints.flush()
        guard descriptor >= 0 else { return }
        let earlier = guarded.withLock { state -> DownloadError? in
            defer { state.checkpointError = nil }
            return state.checkpointError
        }
        do {
            try checkpoint(fd: descriptor, ranges: written, name: writingName)
        } catch .diskFull {
            // Never a byte the record already vouches for: those need no new record.
            let durable = guarded.withLock { $0.pendingRecord == nil ? $0.record.durable : ByteRanges() }
            let tails = ByteRanges(written.ranges.map { max($0.lowerBound, $0.upperBound - diskFullMargin)..<$0.upperBound })
            let givenBack = tails.subtracting(durable)
            for range in givenBack.ranges {
                _ = fp_punch_hole(descriptor, off_t(range.lowerBound), off_t(range.upperBound - range.lowerBound))
            }
            let kept = written.subtracting(givenBack)
            written = kept
            try checkpoint(fd: descriptor, ranges: kept, name: writingName)
            throw .diskFull
        }
        if let earlier { throw earlier }
    }

    /// Bytes given back per range on a full disk so the record fits: far more than a record needs.
    private let diskFullMargin: Int64 = 256 * 1024

    /// Moves the whole file into the videos folder; the partial and its record go. Returns the
    /// finished record and the video's path. Every byte of `[0, total)` must be written.
    ///
    /// Order matters for crashes: the finished record first (it counts only once a file of its
    /// length exists), then the rename, then the folder sync, then the partial's record.
    func complete(finalURL: String?) throws(DownloadError) -> (DownloadRecord, String) {
        if descriptor < 0 {
            // Completed without a body (a 416, or all bytes already durable).
            try openForAppend()
        }
        checkpoints.flush()
        let pending = guarded.withLock { $0.pendingRecord }
        var final = pending ?? record
        let count = final.total ?? written.upperBound
        guard written.covers(total: count) else {
            throw .badResponse(String(format: tr("the download ended with bytes missing (%1$lld of %2$lld)"), written.count, count))
        }
        if final.unjudged == true {
            // Its first bytes, kept by a pause, were all there was: judged now, before it is a video.
            let first = readBack(at: 0, count: MediaSniffer.enough)
            if let kind = first.withUnsafeBytes({ MediaSniffer.document(contentType: final.contentType, firstBytes: $0) }) {
                throw .notAVideo(kind)
            }
            final.sniffedType = first.withUnsafeBytes { MediaSniffer.mediaType(firstBytes: $0) }
            final.unjudged = nil
        }
        try FileIO.truncate(descriptor, to: count, path: writingName)
        try FileIO.dataSync(descriptor, path: writingName)
        let source = cache.partialDirectory + "/" + writingName
        closeDescriptor()
        final.durable = ByteRanges(prefix: count)
        final.ranges = nil
        final.dataFile = nil
        final.failure = nil
        final.total = count
        final.finalURL = finalURL ?? final.finalURL
        final.completed = Date()
        let destination = try cache.placeVideo(source, record: &final, key: key)
        FileIO.remove(cache.partialPath(key, "json"))
        for path in cache.dataFiles(key: key) { FileIO.remove(path) }
        try FileIO.syncDirectory(cache.partialDirectory)
        guarded.withLock {
            $0.pendingRecord = nil
            $0.record = final
        }
        board.publish(path: destination, ranges: ByteRanges(prefix: count), total: count)
        return (final, destination)
    }

    private func closeDescriptor() {
        if descriptor >= 0 {
            checkpoints.flush()
            FileIO.close(descriptor)
            descriptor = -1
        }
    }
}

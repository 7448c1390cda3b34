import Foundation
import Glibc
import ThreadKit

/// A presentation's segments on disk: one data file per piece (a segment, an init section, a
/// byte range of a file, or a whole file whose server ignores ranges), named by the piece's
/// `id`, and one list of the finished ones.
///
/// ```
/// ROOT/hls/KEY/segments/ID         a piece's bytes
/// ROOT/hls/KEY/segments/finished   the IDs of the pieces whole on disk, one a line
/// ```
/// A piece is written from its start, synced, then listed: a listed piece is whole, after a
/// crash too; one not listed is fetched again from its start (a piece is seconds of video). No
/// record, lock or rename per piece: the presentation's lock covers the folder.
///
/// The feeds of the remux wait here for the pieces they need next, in playing order, while the
/// pool finishes them in any order (`wait(for:)`), until the store is closed (a pause, a failure).
final class SegmentStore: Sendable {
    let folder: String
    /// The IDs of the pieces listed, and whether this run's waits are over.
    private let state: Locked<(finished: Set<String>, closed: Bool)>
    private var listPath: String { folder + "/finished" }

    init(folder: String) throws(DownloadError) {
        self.folder = folder
        try FileIO.makePrivateFolder(folder)
        let listed = FileIO.readSmallFile(folder + "/finished", limit: 64 << 20).map { String(decoding: $0, as: UTF8.self) } ?? ""
        // A line cut short by a crash is no ID; a listed piece whose file went is not whole.
        let ids = listed.split(separator: "\n").map(String.init).filter { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        state = Locked((Set(ids.filter { FileIO.size(of: folder + "/" + $0) != nil }), false))
    }

    func path(of id: String) -> String { folder + "/" + id }

    /// Whether `piece` is whole, by the list alone: no disk is read, so the window may ask on its
    /// main thread, for every segment, at every tick.
    func isWhole(_ piece: StreamPiece) -> Bool {
        let ids = state.withLock { $0.finished }
        return ids.contains(piece.id) || (piece.range != nil && ids.contains(piece.whole.id))
    }

    /// Where `piece`'s bytes are, when whole: its own file, or its range of its whole resource.
    func location(of piece: StreamPiece) -> (path: String, offset: Int64, length: Int64)? {
        let ids = state.withLock { $0.finished }
        if ids.contains(piece.id), let size = FileIO.size(of: path(of: piece.id)) { return (path(of: piece.id), 0, size) }
        guard let range = piece.range, ids.contains(piece.whole.id) else { return nil }
        return (path(of: piece.whole.id), range.offset, range.length)
    }

    /// The file a piece is written into, from its start.
    func create(_ id: String) throws(DownloadError) -> Int32 {
        try FileIO.open(path(of: id), O_WRONLY | O_CREAT | O_TRUNC)
    }

    /// Syncs the piece's file (`fd`, which the caller closes), then lists it as finished.
    func finish(_ id: String, fd: Int32) throws(DownloadError) {
        try FileIO.dataSync(fd, path: path(of: id))
        let line = Array((id + "\n").utf8)
        try state.withLockAndNotify { (state: inout (finished: Set<String>, closed: Bool)) throws(DownloadError) in
            let list = try FileIO.open(listPath, O_WRONLY | O_CREAT | O_APPEND)
            defer { FileIO.close(list) }
            var failure: DownloadError?
            line.withUnsafeBytes { bytes in
                do throws(DownloadError) { try FileIO.writeAll(list, bytes, path: listPath) } catch { failure = error }
            }
            if let failure { throw failure }
            try FileIO.dataSync(list, path: listPath)
            state.finished.insert(id)
        }
    }

    /// Waits until `piece` is whole; false when the store was closed first.
    func wait(for piece: StreamPiece) -> Bool {
        let ids = [piece.id] + (piece.range == nil ? [] : [piece.whole.id])
        return state.wait(until: { !$0.finished.isDisjoint(with: ids) || $0.closed }) { !$0.finished.isDisjoint(with: ids) }
    }

    /// Waits up to `timeout` seconds until `piece` is whole, whether or not this run's waits
    /// are over (a player waits across a pause); false when it is not whole by then.
    func wait(for piece: StreamPiece, timeout: Double) -> Bool {
        let ids = [piece.id] + (piece.range == nil ? [] : [piece.whole.id])
        return state.wait(until: { !$0.finished.isDisjoint(with: ids) }, timeout: timeout)
    }

    /// No more pieces will arrive in this run (a pause, a failure): every wait returns.
    func close() { state.withLockAndNotify { $0.closed = true } }

    /// Drops a finished piece whose bytes are unusable (an init section that is not MP4): the
    /// list first, so nothing vouches for the file, then the file. A continue fetches it again.
    func forget(_ piece: StreamPiece) {
        let gone = state.withLock { state -> String? in
            guard let id = [piece.id, piece.whole.id].first(where: state.finished.contains) else { return nil }
            state.finished.remove(id)
            try? FileIO.replaceAtomically(path: listPath, contents: Data(state.finished.sorted().map { $0 + "\n" }.joined().utf8))
            return id
        }
        if let gone { FileIO.remove(path(of: gone)) }
    }
}

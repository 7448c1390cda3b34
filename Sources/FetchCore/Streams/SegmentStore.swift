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
/// ROOT/hls/KEY/segments/kept       pieces set aside part-way: ID, bytes, length, validator
/// ```
/// A piece is written from its start, synced, then listed: a listed piece is whole, after a
/// crash too. A piece set aside (a viewer's seek wanted its connection, a pause) is noted with
/// the bytes it has and its answer's validator, and continued from there with `Range` and
/// `If-Range`; one neither listed nor noted (a crash) is fetched again from its start (a piece is
/// seconds of video). No record, lock or rename per piece: the presentation's lock covers the
/// folder.
///
/// The feeds of the remux wait here for the pieces they need next, in playing order, while the
/// pool finishes them in any order (`wait(for:)`), until the store is closed (a pause, a failure).
final class SegmentStore: Sendable {
    let folder: String
    /// The IDs of the pieces listed, and whether this run's waits are over.
    private let state: Locked<(finished: Set<String>, closed: Bool)>
    /// The pieces set aside part-way, by ID.
    private let setAside: Locked<[String: PieceBody.Kept]>
    private var listPath: String { folder + "/finished" }
    private var keptPath: String { folder + "/kept" }

    init(folder: String) throws(DownloadError) {
        self.folder = folder
        try FileIO.makePrivateFolder(folder)
        let listed = FileIO.readSmallFile(folder + "/finished", limit: 64 << 20).map { String(decoding: $0, as: UTF8.self) } ?? ""
        // A line cut short by a crash is no ID; a listed piece whose file went is not whole.
        let ids = listed.split(separator: "\n").map(String.init).filter { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        let finished = Set(ids.filter { FileIO.size(of: folder + "/" + $0) != nil })
        state = Locked((finished, false))
        setAside = Locked(Self.readKept(folder + "/kept", folder: folder).filter { !finished.contains($0.key) })
    }

    /// The notes of pieces set aside, the last line of each ID winning; a note whose file holds
    /// fewer bytes than it says is dropped (that piece starts again).
    private static func readKept(_ path: String, folder: String) -> [String: PieceBody.Kept] {
        let text = FileIO.readSmallFile(path, limit: 4 << 20).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var kept: [String: PieceBody.Kept] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3).map(String.init)
            guard fields.count == 4, fields[0].count == 64, fields[0].allSatisfy(\.isHexDigit),
                  let written = Int64(fields[1]), written > 0, !fields[3].isEmpty,
                  let size = FileIO.size(of: folder + "/" + fields[0]), size >= written else { continue }
            kept[fields[0]] = PieceBody.Kept(written: written, validator: fields[3], total: Int64(fields[2]))
        }
        return kept
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

    /// What a piece set aside part-way has, to continue from; nil for one to fetch from its start.
    func kept(_ piece: StreamPiece) -> PieceBody.Kept? { setAside.withLock { $0[piece.id] } }

    /// Notes that `piece` was set aside with `kept` of its bytes on disk (a connection a viewer
    /// needed elsewhere, a pause), so this run or a later one continues it. Best effort: a note
    /// that cannot be written only costs the piece's bytes again.
    func keep(_ piece: StreamPiece, _ kept: PieceBody.Kept) {
        guard !kept.validator.contains(where: \.isNewline), !kept.validator.contains("\t") else { return }
        setAside.withLock { notes in
            notes[piece.id] = kept
            let line = Array("\(piece.id)\t\(kept.written)\t\(kept.total.map(String.init) ?? "-")\t\(kept.validator)\n".utf8)
            guard let list = try? FileIO.open(keptPath, O_WRONLY | O_CREAT | O_APPEND) else { return }
            defer { FileIO.close(list) }
            line.withUnsafeBytes { try? FileIO.writeAll(list, $0, path: keptPath) }
        }
    }

    /// Lists a piece set aside with all its bytes as finished (its file cut to them).
    func finishSetAside(_ piece: StreamPiece) throws(DownloadError) {
        guard let kept = kept(piece) else { return }
        let fd = try FileIO.open(path(of: piece.id), O_WRONLY)
        defer { FileIO.close(fd) }
        guard ftruncate(fd, off_t(kept.written)) == 0 else { throw FileIO.error("ftruncate", path(of: piece.id)) }
        try finish(piece.id, fd: fd)
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

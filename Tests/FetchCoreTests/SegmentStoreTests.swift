@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The segment store's notes of pieces set aside part-way, read back by a later run: a note is
/// only believed when its piece's file holds the bytes it names, whatever else the file says.
struct SegmentStoreTests {
    let folder: TemporaryDirectory
    let piece = StreamPiece(url: "https://example.org/seg1.m4s")

    init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-store")
    }

    private func store() throws -> SegmentStore { try SegmentStore(folder: folder.file("segments")) }

    private func write(_ count: Int, to piece: StreamPiece, in store: SegmentStore) throws {
        try Data(repeating: 7, count: count).write(to: URL(fileURLWithPath: store.path(of: piece.id)))
    }

    @Test func aNoteOfAPieceSetAsideIsReadByTheNextRun() throws {
        let first = try store()
        try write(1000, to: piece, in: first)
        first.keep(piece, PieceBody.Kept(written: 1000, validator: "Sun, 06 Dec 2026 10:00:00 GMT", total: 5000))
        #expect(try store().kept(piece) == PieceBody.Kept(written: 1000, validator: "Sun, 06 Dec 2026 10:00:00 GMT", total: 5000))
    }

    @Test func aNoteNamingMoreBytesThanItsFileHasIsDropped() throws {
        let first = try store()
        try write(10, to: piece, in: first)
        first.keep(piece, PieceBody.Kept(written: 1000, validator: "\"a\"", total: nil))
        #expect(try store().kept(piece) == nil)
    }

    @Test func brokenLinesAndValidatorsThatCouldBreakALineAreNeverBelieved() throws {
        let first = try store()
        try write(100, to: piece, in: first)
        first.keep(piece, PieceBody.Kept(written: 50, validator: "\"a\nb\"", total: nil))
        #expect(try store().kept(piece) == nil, "a validator with a newline was noted")
        let garbage = "\(piece.id)\t-3\t-\t\"a\"\n\(piece.id)\tten\t-\t\"a\"\nnot-an-id\t5\t-\t\"a\"\n\(piece.id)\t40\t-\n"
        try garbage.write(toFile: folder.file("segments/kept"), atomically: true, encoding: .utf8)
        #expect(try store().kept(piece) == nil)
    }

    @Test func aPieceSetAsideWithAllItsBytesIsFinishedWithoutAskingAgain() throws {
        let first = try store()
        // A write cut short may leave bytes after those noted: they are cut off.
        try write(120, to: piece, in: first)
        first.keep(piece, PieceBody.Kept(written: 100, validator: "\"a\"", total: 100))
        let next = try store()
        #expect(next.kept(piece)?.isWhole == true)
        try next.finishSetAside(piece)
        #expect(next.location(of: piece)?.length == 100)
        #expect(try store().isWhole(piece))
    }
}

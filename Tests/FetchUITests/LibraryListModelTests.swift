import Testing
@testable import FetchUI

/// How the list's order changes: a few splices where rows come or go in a few runs, one
/// replacement when it would take many (each splice rebinds the rows after it).
struct LibraryListModelTests {
    func apply(_ splices: [LibraryListModel.Splice], to list: [String]) -> [String] {
        var list = list
        for splice in splices {
            list.replaceSubrange(splice.position..<(splice.position + splice.removing), with: splice.inserting)
        }
        return list
    }

    @Test func rowsAddedAndRemovedInRunsAreSpliced() throws {
        let old = ["a", "b", "c", "d", "e"]
        let new = ["new", "a", "c", "x", "y", "d"]
        let splices = try #require(LibraryListModel.splices(from: old, to: new, atMost: 8))
        #expect(apply(splices, to: old) == new)
        // b and e go, "new" and "x y" come: four runs.
        #expect(splices.count == 4)
        #expect(LibraryListModel.splices(from: old, to: old, atMost: 8) == [])
    }

    @Test func manyRunsOrAMovedRowAreOneReplacement() {
        // The first reading of a big library: its first batch, then every row, interleaved.
        let batch = stride(from: 0, to: 100, by: 10).map { "v\($0)" }
        let all = (0..<100).map { "v\($0)" }
        #expect(LibraryListModel.splices(from: batch, to: all, atMost: 8) == nil)
        // A kept row that moved cannot be spliced.
        #expect(LibraryListModel.splices(from: ["a", "b"], to: ["b", "a"], atMost: 8) == nil)
        #expect(LibraryListModel.splices(from: [], to: all, atMost: 8)?.count == 1)
    }
}

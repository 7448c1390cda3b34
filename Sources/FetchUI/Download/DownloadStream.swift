import FetchCore
import FetchPlayer
import ThreadKit

/// A download as the player's byte source: the player reads the partial through the engine's
/// `PartialReader` (on GStreamer's streaming thread) while the bytes arrive.
final class DownloadStream: ByteSource {
    private let reader: Locked<PartialReader>
    private let board: DownloadBoard

    init(board: DownloadBoard) {
        self.board = board
        reader = Locked(PartialReader(board: board))
    }

    var size: Int64? { reader.withLock { $0.total } }

    func isAvailable(at offset: Int64) -> Bool? { board.coverage.spans.contains { $0.contains(offset) } }

    func read(at offset: Int64, count: Int, timeout: Double) throws -> [UInt8] {
        do {
            return try reader.withLock { try $0.read(at: offset, count: count, timeout: timeout) }
        } catch PartialReader.ReadError.notDownloaded {
            throw ByteSourceError.notDownloaded
        }
    }
}

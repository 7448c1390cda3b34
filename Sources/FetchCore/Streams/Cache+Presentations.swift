import Foundation

/// The unfinished HLS and DASH presentations in the cache (`ROOT/hls/KEY/`), as the library
/// lists them: partials like any other, whose progress is their finished segments.
extension Cache {
    /// `ROOT/hls`: one folder per HLS link not finished yet.
    var presentationsDirectory: String { root + "/hls" }

    func presentationFolder(key: String) -> String { presentationsDirectory + "/" + key }

    /// Whether `url` is an HLS presentation begun here and not finished: such a link continues
    /// the HLS way, whatever its address looks like.
    public func hasPresentation(for url: String) -> Bool {
        FileIO.size(of: presentationFolder(key: Self.key(for: url)) + "/presentation.json") != nil
    }

    /// Every unfinished presentation whose record is trusted (its link hashes to its folder's name).
    func presentationEntries() -> [LibraryItem] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: presentationsDirectory)) ?? []
        return names.filter { $0.count == 64 }.compactMap { presentationEntry(key: $0) }
    }

    /// What is on disk of `key`'s presentation: the bytes and the segments already whole.
    func presentationEntry(key: String) -> LibraryItem? {
        let folder = presentationFolder(key: key)
        guard FileIO.size(of: folder + "/presentation.json") != nil,
              let presentation = try? PresentationFolder(cache: self, key: key),
              let record = presentation.loadTrusted(key: key) else { return nil }
        let tracks = record.presentation?.tracks ?? []
        var done = Set<StreamPiece>()
        var bytes: Int64 = 0
        for piece in SegmentPool.pieces(of: tracks) {
            guard let place = presentation.store.location(of: piece) else { continue }
            done.insert(piece)
            bytes += place.length
        }
        // When it last changed: a segment finishing changes its folder.
        let changed = [folder + "/segments/finished", folder + "/presentation.json"].compactMap {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
        }.max() ?? Date()
        var item = LibraryItem(url: record.url, displayName: VideoName.make(suggested: record.displayName,
                                                                            contentType: record.presentation?.contentType, sniffed: nil),
                               isComplete: false, bytesDone: bytes, total: nil, path: folder, date: changed,
                               failure: record.failure)
        item.segments = tracks.isEmpty ? nil : SegmentPool.progress(of: tracks, done: done)
        return item
    }
}

/// What a player needs to watch an HLS or DASH presentation while it downloads: its tracks and
/// where their pieces are. Each run of the download publishes its own on the download's board
/// (`DownloadBoard.stream`); the watch server reads the latest, so a pause and a continue (a
/// new run, a new store) go on under a player that keeps playing.
public struct WatchableStream: Sendable {
    let tracks: [StreamTrack]
    let store: SegmentStore
    let keys: SegmentKeyring
    /// Where each track's segments start playing, in seconds.
    let starts: [[Double]]

    init(tracks: [StreamTrack], store: SegmentStore, keys: SegmentKeyring) {
        self.tracks = tracks
        self.store = store
        self.keys = keys
        starts = tracks.map { track in
            var time = 0.0
            return track.segments.map { segment in defer { time += segment.duration }; return time }
        }
    }

    /// Seconds of the whole presentation.
    public var duration: Double { tracks.first?.duration ?? 0 }

    /// Whether a player can start: every track's first segment, and the init section before it,
    /// are on disk (the rest comes while it plays).
    public var canStartPlaying: Bool {
        !tracks.isEmpty && tracks.indices.allSatisfy { index in
            guard let piece = piece(track: index, segment: 0) else { return false }
            let section = tracks[index].segments[0].section.flatMap { self.piece(track: index, section: $0) }
            return store.location(of: piece.stored) != nil && section.map { store.location(of: $0.stored) != nil } ?? true
        }
    }

    /// A track's segment as the feeds read it; nil past its end.
    func piece(track: Int, segment: Int) -> SegmentFeed.Piece? {
        guard tracks.indices.contains(track), tracks[track].segments.indices.contains(segment) else { return nil }
        let found = tracks[track].segments[segment]
        return SegmentFeed.Piece(url: found.url, range: found.range, key: found.key,
                                 kind: found.section == nil ? .segment : .fragment, periodStart: found.periodStart)
    }

    /// A track's init section; nil past its end.
    func piece(track: Int, section: Int) -> SegmentFeed.Piece? {
        guard tracks.indices.contains(track), tracks[track].sections.indices.contains(section) else { return nil }
        let found = tracks[track].sections[section]
        return SegmentFeed.Piece(url: found.url, range: found.range, key: found.key, kind: .initSection)
    }

    /// Where an init section is first needed, in seconds.
    func start(track: Int, section: Int) -> Double {
        let first = tracks[track].segments.firstIndex { $0.section == section } ?? 0
        return starts[track].indices.contains(first) ? starts[track][first] : 0
    }
}

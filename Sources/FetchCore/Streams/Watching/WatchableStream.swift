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
    /// Its WebVTT subtitle files, on disk in the presentation's folder.
    public let subtitles: [String]

    init(tracks: [StreamTrack], store: SegmentStore, keys: SegmentKeyring, subtitles: [String] = []) {
        self.tracks = tracks
        self.subtitles = subtitles
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
            return store.isWhole(piece.stored) && section.map { store.isWhole($0.stored) } ?? true
        }
    }

    /// The parts of the presentation on disk, as fractions of its duration: the times every track
    /// has (a video segment without its audio does not play), for the seek bar.
    public var fractions: [ClosedRange<Double>] {
        let total = duration
        guard total > 0 else { return [] }
        let perTrack = tracks.indices.map { index in
            tracks[index].segments.indices.compactMap { segment -> ClosedRange<Double>? in
                guard let piece = piece(track: index, segment: segment), store.isWhole(piece.stored) else { return nil }
                let start = starts[index][segment]
                return start...(start + tracks[index].segments[segment].duration)
            }
        }
        // The first track's spans cut by each other's: a time counts when every track has it.
        var shared = Self.merged(perTrack.first ?? [])
        for spans in perTrack.dropFirst() {
            let other = Self.merged(spans)
            shared = shared.flatMap { span in
                other.compactMap { part in
                    let low = max(span.lowerBound, part.lowerBound), high = min(span.upperBound, part.upperBound)
                    return low < high ? low...high : nil
                }
            }
        }
        return shared.map { max(0, $0.lowerBound / total)...min(1, $0.upperBound / total) }
    }

    /// Spans joined where they touch (segments end where the next starts, give or take a
    /// rounding).
    private static func merged(_ spans: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        spans.sorted { $0.lowerBound < $1.lowerBound }.reduce(into: []) { joined, span in
            if let last = joined.last, span.lowerBound <= last.upperBound + 0.001 {
                joined[joined.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                joined.append(span)
            }
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

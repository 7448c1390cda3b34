/// Turns a Representation's segment addressing into its list of segments: SegmentTemplate
/// (`$Number$`, `$Time$`, `$RepresentationID$`, `$Bandwidth$`, widths as `%05d`; a
/// SegmentTimeline or a fixed duration), SegmentList (links or `mediaRange`s), and SegmentBase
/// once its `sidx` is read (`DASHSegmentIndex`).
///
/// Counts are checked before anything is made: an `r="2000000000"` is refused at once, never
/// looped over or allocated.
public enum DASHSegmentTemplate {
    /// Segments one Representation may have over the whole presentation (a day of 1 s segments).
    public static let segmentLimit = 100_000

    /// The segments of `representation` in a Period of `periodDuration` seconds; for
    /// SegmentBase, nil (they are in its `sidx`, which must be fetched first).
    public static func track(of representation: DASHRepresentation, periodDuration: Double?) throws(DASHRefusal) -> StreamTrack? {
        switch representation.segments {
        case .template(let template):
            return try track(template, representation, periodDuration: periodDuration)
        case .list(let list):
            return try track(list, representation, periodDuration: periodDuration)
        case .base:
            return nil
        case .file:
            throw .invalid("the Representation “\(representation.id)” lists no segments")
        }
    }

    // MARK: SegmentTemplate

    private static func track(_ template: DASHTemplate, _ representation: DASHRepresentation,
                              periodDuration: Double?) throws(DASHRefusal) -> StreamTrack {
        guard let media = template.media else { throw .invalid("a SegmentTemplate has no media") }
        let timescale = Double(template.timescale)
        var links = Links(representation)
        var segments: [StreamSegment] = []
        if let timeline = template.timeline {
            let end = periodDuration.map { Int64(min($0 * timescale, 9e15)) + template.presentationTimeOffset }
            let times = try Self.times(timeline, end: end)
            segments.reserveCapacity(times.count)
            for (index, entry) in times.enumerated() {
                let link = try fill(media, representation, number: template.startNumber + Int64(index), time: entry.time)
                segments.append(StreamSegment(url: try links.resolve(link), duration: Double(entry.duration) / timescale))
            }
        } else if let duration = template.duration {
            guard let periodDuration, periodDuration > 0 else {
                throw .invalid("the Period of “\(representation.id)” has no duration to count its segments by")
            }
            let seconds = duration / timescale
            let exact = periodDuration / seconds
            guard exact.isFinite, exact <= Double(segmentLimit) else { throw .tooLarge("more than \(segmentLimit) segments") }
            // The last segment may be shorter; a rounding error is no extra segment.
            let count = max(1, Int((exact - 1e-6).rounded(.up)))
            segments.reserveCapacity(count)
            for index in 0..<count {
                let link = try fill(media, representation, number: template.startNumber + Int64(index),
                                    time: Int64((Double(index) * duration).rounded(.down)) + template.presentationTimeOffset)
                let length = index == count - 1 ? periodDuration - Double(index) * seconds : seconds
                segments.append(StreamSegment(url: try links.resolve(link), duration: length))
            }
        } else {
            throw .invalid("the SegmentTemplate of “\(representation.id)” has neither a SegmentTimeline nor a duration")
        }
        guard !segments.isEmpty else { throw .invalid("the Representation “\(representation.id)” lists no segments") }
        let initialization = try template.initialization.map { pattern throws(DASHRefusal) in
            InitSection(url: try links.resolve(try fill(pattern, representation, number: template.startNumber, time: 0)))
        }
        return track(initialization, segments, mirrors: links.mirrors)
    }

    /// Each segment's start and length in the timeline's units; a negative `r` repeats up to
    /// the next `S`'s `t`, or to `end` (the Period's end) for the last one.
    static func times(_ timeline: [DASHTimelineEntry], end: Int64?) throws(DASHRefusal) -> [(time: Int64, duration: Int64)] {
        var counts: [Int64] = []
        var total: Int64 = 0
        var time: Int64 = 0
        // First the counts, checked against the limit before anything is made.
        for (index, entry) in timeline.enumerated() {
            if let start = entry.time { time = start }
            var count: Int64
            if entry.repeats >= 0 {
                guard entry.repeats < Int64(segmentLimit) else { throw .tooLarge("more than \(segmentLimit) segments") }
                count = entry.repeats + 1
            } else {
                let next = index + 1 < timeline.count ? timeline[index + 1].time : end
                guard let next else { throw .invalid("an S element repeats to the end of a Period whose end is not known") }
                guard next > time else { throw .invalid("an S element repeats up to a time before its own") }
                count = (next - time + entry.duration - 1) / entry.duration
            }
            total += count
            guard total <= Int64(segmentLimit) else { throw .tooLarge("more than \(segmentLimit) segments") }
            let (advanced, overflow) = entry.duration.multipliedReportingOverflow(by: count)
            guard !overflow, time <= Int64.max - advanced else { throw .invalid("the SegmentTimeline's times overflow") }
            counts.append(count)
            time += advanced
        }
        var result: [(time: Int64, duration: Int64)] = []
        result.reserveCapacity(Int(total))
        time = 0
        for (entry, count) in zip(timeline, counts) {
            if let start = entry.time { time = start }
            for _ in 0..<count {
                result.append((time, entry.duration))
                time += entry.duration
            }
        }
        return result
    }

    /// `pattern` with its identifiers filled in: `$RepresentationID$`, `$Number$`, `$Time$`,
    /// `$Bandwidth$`, each maybe with a width (`$Number%05d$`), and `$$` for a dollar sign.
    static func fill(_ pattern: String, _ representation: DASHRepresentation, number: Int64, time: Int64) throws(DASHRefusal) -> String {
        var result = ""
        var rest = Substring(pattern)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest.index(after: dollar)
            guard let close = rest[after...].firstIndex(of: "$") else {
                throw .invalid("the template “\(pattern)” has an unclosed $")
            }
            let identifier = rest[after..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty {
                result += "$"
                continue
            }
            let name = identifier.prefix { $0 != "%" }
            let format = identifier.dropFirst(name.count)
            let value: Int64
            switch name {
            case "RepresentationID":
                guard format.isEmpty else { throw .invalid("the template “\(pattern)” formats $RepresentationID$") }
                result += representation.id
                continue
            case "Number": value = number
            case "Time": value = time
            case "Bandwidth": value = Int64(representation.bandwidth)
            default: throw .invalid("the template “\(pattern)” uses $\(identifier)$, which Fetchplay does not know")
            }
            result += try formatted(value, format, pattern: pattern)
        }
        return result + rest
    }

    /// `%0Nd` (or `%d`, `%Nd`): decimal, padded with zeros to N digits.
    private static func formatted(_ value: Int64, _ format: Substring, pattern: String) throws(DASHRefusal) -> String {
        let digits = String(value)
        guard !format.isEmpty else { return digits }
        var spec = format.dropFirst()
        guard format.first == "%", spec.last == "d" else { throw .invalid("the template “\(pattern)” has a width that is not %0Nd") }
        spec = spec.dropLast()
        if spec.first == "0" { spec = spec.dropFirst() }
        guard spec.allSatisfy(\.isASCII), let width = spec.isEmpty ? 0 : Int(spec), (0...32).contains(width) else {
            throw .invalid("the template “\(pattern)” has a width that is not %0Nd")
        }
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: SegmentList

    private static func track(_ list: DASHList, _ representation: DASHRepresentation,
                              periodDuration: Double?) throws(DASHRefusal) -> StreamTrack {
        guard list.segments.count <= segmentLimit else { throw .tooLarge("more than \(segmentLimit) segments") }
        let timescale = Double(list.timescale)
        let timed = try list.timeline.map { timeline throws(DASHRefusal) in
            try times(timeline, end: periodDuration.map { Int64(min($0 * timescale, 9e15)) }).map { Double($0.duration) / timescale }
        }
        let even = list.duration.map { $0 / timescale }
            ?? periodDuration.map { $0 / Double(list.segments.count) } ?? 0
        var links = Links(representation)
        var segments: [StreamSegment] = []
        segments.reserveCapacity(list.segments.count)
        for (index, entry) in list.segments.enumerated() {
            let url = try links.resolve(entry.url)
            let duration = timed.flatMap { index < $0.count ? $0[index] : nil } ?? even
            segments.append(StreamSegment(url: url, range: entry.range?.span, duration: duration))
        }
        let initialization = try list.initialization.map { part throws(DASHRefusal) in
            InitSection(url: try links.resolve(part.url), range: part.range?.span)
        }
        return track(initialization, segments, mirrors: links.mirrors)
    }

    // MARK: SegmentBase

    /// A SegmentBase Representation's segments from its `sidx` (`index`, the bytes at its
    /// `indexRange`), all in its one file.
    public static func track(of representation: DASHRepresentation, index: [UInt8]) throws(DASHRefusal) -> StreamTrack {
        guard case .base(let base) = representation.segments, let indexRange = base.indexRange else {
            throw .invalid("the SegmentBase of “\(representation.id)” has no indexRange")
        }
        var links = Links(representation)
        let url = try links.resolve(nil)
        let references = try DASHSegmentIndex.references(index, at: indexRange.first)
        let segments = references.map { StreamSegment(url: url, range: $0.range.span, duration: $0.duration) }
        // No Initialization: the bytes before the index (ftyp and moov).
        let initialization = try base.initialization.map { part throws(DASHRefusal) in
            InitSection(url: try links.resolve(part.url), range: part.range?.span)
        } ?? (indexRange.first > 0 ? InitSection(url: url, range: ByteSpan(offset: 0, length: indexRange.first)) : nil)
        return track(initialization, segments, mirrors: links.mirrors)
    }

    /// A track of one init section (or none) before every segment.
    private static func track(_ initialization: InitSection?, _ segments: [StreamSegment], mirrors: [StreamMirror]) -> StreamTrack {
        StreamTrack(sections: initialization.map { [$0] } ?? [],
                    segments: initialization == nil ? segments : segments.map { var segment = $0; segment.section = 0; return segment },
                    mirrors: mirrors)
    }

    /// A Representation's links resolved against its BaseURL (none: the BaseURL itself), each
    /// also against its other BaseURLs, so the track knows where else its pieces are.
    struct Links {
        let representation: DASHRepresentation
        private(set) var mirrors: [StreamMirror] = []

        init(_ representation: DASHRepresentation) { self.representation = representation }

        mutating func resolve(_ link: String?) throws(DASHRefusal) -> String {
            guard let url = link.map({ RelativeLink.resolve($0, against: representation.baseURL) }) ?? representation.baseURL else {
                throw .unsafeLink(link ?? "")
            }
            for base in representation.mirrors {
                guard let other = link.map({ RelativeLink.resolve($0, against: base) }) ?? base else { throw .unsafeLink(link ?? "") }
                StreamMirror.note(url, at: other, in: &mirrors)
            }
            return url
        }
    }
}

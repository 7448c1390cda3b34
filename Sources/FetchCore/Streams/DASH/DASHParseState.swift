/// What `DASHManifestParser` has read so far: the open elements, the Period, AdaptationSet and
/// Representation being read, and what each level says about segments, which the levels
/// below inherit attribute by attribute (ISO/IEC 23009-1 §5.3.9.1).
struct DASHParseState {
    /// One `SegmentTemplate`, `SegmentList` or `SegmentBase` as written at one level.
    struct SegmentElement {
        enum Kind: Int { case template, list, base }
        var kind: Kind
        var attributes: [String: String]
        var timeline: [DASHTimelineEntry]?
        var initialization: (url: String?, range: String?)?
        var urls: [(media: String?, range: String?)]?
    }

    /// What one level (Period, AdaptationSet, Representation) says about its segments.
    typealias Segments = [SegmentElement.Kind: SegmentElement]

    private let base: String
    private var stack: [String] = []
    private var isDynamic = false
    private var duration: Double?
    private var periods: [DASHPeriod] = []
    private var mpdBaseURL: String?

    private var period: DASHPeriod?
    private var periodBaseURL: String?
    private var periodSegments: Segments = [:]

    private var adaptation: DASHAdaptationSet?
    private var adaptationAttributes: [String: String] = [:]
    private var adaptationBaseURL: String?
    private var adaptationSegments: Segments = [:]
    private var adaptationProtection: String?

    private var representation: [String: String]?
    private var representationBaseURL: String?
    private var representationSegments: Segments = [:]
    private var representationProtection: String?

    private var segment: SegmentElement?
    private var text: String?
    private var entries = 0
    private var representations = 0

    init(base: String) { self.base = base }

    mutating func open(_ name: String, _ attributes: [String: String]) throws(DASHRefusal) {
        let parent = stack.last
        defer { stack.append(name) }
        guard let parent else {
            guard name == "MPD" else { throw .notMPD(name) }
            if attributes["type"] == "dynamic" { throw .live }
            duration = try attributes["mediaPresentationDuration"].map { text throws(DASHRefusal) in try Self.seconds(text) }
            return
        }
        switch (parent, name) {
        case (_, "BaseURL") where ["MPD", "Period", "AdaptationSet", "Representation"].contains(parent):
            text = ""
        case ("MPD", "Period"):
            guard periods.count < DASHManifestParser.periodLimit else {
                throw .tooLarge("more than \(DASHManifestParser.periodLimit) Periods")
            }
            period = DASHPeriod(id: attributes["id"], start: try attributes["start"].map { text throws(DASHRefusal) in try Self.seconds(text) },
                                duration: try attributes["duration"].map { text throws(DASHRefusal) in try Self.seconds(text) },
                                adaptationSets: [])
            periodBaseURL = nil
            periodSegments = [:]
        case ("Period", "AdaptationSet"):
            adaptation = DASHAdaptationSet(contentType: attributes["contentType"], mimeType: attributes["mimeType"],
                                           language: attributes["lang"], roles: [], representations: [])
            adaptationAttributes = attributes
            adaptationBaseURL = nil
            adaptationSegments = [:]
            adaptationProtection = nil
        case ("AdaptationSet", "Role"):
            if let value = attributes["value"] { adaptation?.roles.append(value.lowercased()) }
        case ("AdaptationSet", "ContentProtection"):
            adaptationProtection = adaptationProtection ?? Self.protectionName(attributes)
        case ("Representation", "ContentProtection"):
            representationProtection = representationProtection ?? Self.protectionName(attributes)
        case ("AdaptationSet", "Representation"):
            representations += 1
            guard representations <= DASHManifestParser.representationLimit else {
                throw .tooLarge("more than \(DASHManifestParser.representationLimit) Representations")
            }
            representation = attributes
            representationBaseURL = nil
            representationSegments = [:]
            representationProtection = nil
        case (_, "SegmentTemplate") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .template, attributes: attributes)
        case (_, "SegmentList") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .list, attributes: attributes)
        case (_, "SegmentBase") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .base, attributes: attributes)
        case ("SegmentTemplate", "SegmentTimeline"), ("SegmentList", "SegmentTimeline"):
            segment?.timeline = []
        case ("SegmentTimeline", "S"):
            try count()
            guard let d = attributes["d"].flatMap({ Int64($0) }), d > 0 else { throw .invalid("an S element has no positive d") }
            let t = try attributes["t"].map { text throws(DASHRefusal) -> Int64 in
                guard let value = Int64(text), value >= 0 else { throw .invalid("an S element's t “\(text)” is not a time") }
                return value
            }
            let r = try attributes["r"].map { text throws(DASHRefusal) -> Int64 in
                guard let value = Int64(text), value >= -1 else { throw .invalid("an S element's r “\(text)” is not a count") }
                return value
            } ?? 0
            segment?.timeline?.append(DASHTimelineEntry(time: t, duration: d, repeats: r))
        case ("SegmentBase", "Initialization"), ("SegmentList", "Initialization"), ("SegmentTemplate", "Initialization"),
             ("SegmentBase", "Initialisation"), ("SegmentList", "Initialisation"):
            segment?.initialization = (attributes["sourceURL"], attributes["range"])
        case ("SegmentList", "SegmentURL"):
            try count()
            if segment != nil {
                if segment!.urls == nil { segment!.urls = [] }
                segment!.urls!.append((attributes["media"], attributes["mediaRange"]))
            }
        default:
            break
        }
    }

    private mutating func count() throws(DASHRefusal) {
        entries += 1
        guard entries <= DASHManifestParser.entryLimit else {
            throw .tooLarge("more than \(DASHManifestParser.entryLimit) segments")
        }
    }

    mutating func text(_ value: String) {
        if text != nil, stack.last == "BaseURL" { text! += value }
    }

    mutating func close() throws(DASHRefusal) {
        guard let name = stack.popLast() else { return }
        let parent = stack.last
        switch (parent, name) {
        case (let level?, "BaseURL"):
            let value = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            text = nil
            guard !value.isEmpty else { return }
            // The first BaseURL of a level; the others are the same content elsewhere.
            switch level {
            case "MPD": mpdBaseURL = mpdBaseURL ?? value
            case "Period": periodBaseURL = periodBaseURL ?? value
            case "AdaptationSet": adaptationBaseURL = adaptationBaseURL ?? value
            case "Representation": representationBaseURL = representationBaseURL ?? value
            default: break
            }
        case (let level?, "SegmentTemplate"), (let level?, "SegmentList"), (let level?, "SegmentBase"):
            guard let element = segment else { return }
            segment = nil
            switch level {
            case "Period": periodSegments[element.kind] = element
            case "AdaptationSet": adaptationSegments[element.kind] = element
            case "Representation": representationSegments[element.kind] = element
            default: break
            }
        case ("AdaptationSet", "Representation"):
            if let attributes = representation {
                let finished = try finishRepresentation(attributes)
                adaptation?.representations.append(finished)
            }
            representation = nil
        case ("Period", "AdaptationSet"):
            if let adaptation { period?.adaptationSets.append(adaptation) }
            adaptation = nil
        case ("MPD", "Period"):
            if let period { periods.append(period) }
            period = nil
        default:
            break
        }
    }

    /// The manifest, each Period's duration filled in from its neighbours.
    func finish() throws(DASHRefusal) -> DASHManifest {
        guard !periods.isEmpty else { throw .invalid("it has no Period") }
        var periods = periods
        for index in periods.indices {
            if periods[index].start == nil {
                periods[index].start = index == 0 ? 0 : periods[index - 1].start.flatMap { start in
                    periods[index - 1].duration.map { start + $0 }
                }
            }
        }
        for index in periods.indices where periods[index].duration == nil {
            guard let start = periods[index].start else { continue }
            let end = index + 1 < periods.count ? periods[index + 1].start : duration
            if let end, end >= start { periods[index].duration = end - start }
        }
        return DASHManifest(isDynamic: isDynamic, duration: duration, periods: periods)
    }

    // MARK: Representations

    private func finishRepresentation(_ attributes: [String: String]) throws(DASHRefusal) -> DASHRepresentation {
        guard let bandwidth = attributes["bandwidth"].flatMap({ Int($0) }), bandwidth >= 0 else {
            throw .invalid("a Representation has no bandwidth")
        }
        let inherited = { (name: String) in attributes[name] ?? adaptationAttributes[name] }
        var url = base
        for link in [mpdBaseURL, periodBaseURL, adaptationBaseURL, representationBaseURL].compactMap({ $0 }) {
            guard let resolved = RelativeLink.resolve(link, against: url) else { throw .unsafeLink(link) }
            url = resolved
        }
        let id = attributes["id"] ?? ""
        return DASHRepresentation(id: id, bandwidth: bandwidth,
                                  width: inherited("width").flatMap { Int($0) }, height: inherited("height").flatMap { Int($0) },
                                  codecs: (inherited("codecs") ?? "").split(separator: ",")
                                      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                                  mimeType: inherited("mimeType"), baseURL: url,
                                  segments: try source(id: id),
                                  protection: representationProtection ?? adaptationProtection)
    }

    /// The most specific level's kind of segment element, merged over the same kind above it.
    private func source(id: String) throws(DASHRefusal) -> DASHSegmentSource {
        let levels = [representationSegments, adaptationSegments, periodSegments]
        guard let kind = levels.lazy.compactMap({ $0.keys.min(by: { $0.rawValue < $1.rawValue }) }).first else {
            throw .invalid("the Representation “\(id)” lists no segments")
        }
        var merged = SegmentElement(kind: kind, attributes: [:])
        for level in levels.reversed() {
            guard let element = level[kind] else { continue }
            merged.attributes.merge(element.attributes) { _, new in new }
            merged.timeline = element.timeline ?? merged.timeline
            merged.initialization = element.initialization ?? merged.initialization
            merged.urls = element.urls ?? merged.urls
        }
        let timescale = try Self.positive(merged.attributes["timescale"], default: 1, name: "timescale")
        let duration = try merged.attributes["duration"].map { text throws(DASHRefusal) in
            try Self.positive(text, default: 1, name: "duration")
        }
        let initialization = try merged.initialization.map { url, range throws(DASHRefusal) in
            DASHURLRange(url: url, range: try range.map { text throws(DASHRefusal) in try Self.range(text) })
        }
        switch kind {
        case .template:
            guard let media = merged.attributes["media"] else { throw .invalid("the SegmentTemplate of “\(id)” has no media") }
            var template = DASHTemplate(media: media, initialization: merged.attributes["initialization"] ?? initialization?.url)
            template.timescale = timescale
            template.duration = duration
            template.timeline = merged.timeline
            template.startNumber = try merged.attributes["startNumber"].map { text throws(DASHRefusal) in
                guard let value = Int64(text), value >= 0 else { throw .invalid("the startNumber “\(text)” is not a number") }
                return value
            } ?? 1
            template.presentationTimeOffset = Int64(merged.attributes["presentationTimeOffset"] ?? "") ?? 0
            guard template.timeline != nil || template.duration != nil else {
                throw .invalid("the SegmentTemplate of “\(id)” has neither a SegmentTimeline nor a duration")
            }
            return .template(template)
        case .list:
            let urls = try (merged.urls ?? []).map { media, range throws(DASHRefusal) in
                DASHURLRange(url: media, range: try range.map { text throws(DASHRefusal) in try Self.range(text) })
            }
            guard !urls.isEmpty else { throw .invalid("the SegmentList of “\(id)” has no SegmentURL") }
            return .list(DASHList(initialization: initialization, timescale: timescale, duration: duration,
                                  timeline: merged.timeline, segments: urls))
        case .base:
            return .base(DASHBase(initialization: initialization,
                                  indexRange: try merged.attributes["indexRange"].map { text throws(DASHRefusal) in try Self.range(text) },
                                  timescale: timescale))
        }
    }

    // MARK: Values

    private static func positive(_ text: String?, default value: Int64, name: String) throws(DASHRefusal) -> Int64 {
        guard let text else { return value }
        guard let number = Int64(text), number > 0 else { throw .invalid("the \(name) “\(text)” is not a positive number") }
        return number
    }

    /// `first-last`, both included.
    static func range(_ text: String) throws(DASHRefusal) -> DASHRange {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0].trimmingCharacters(in: .whitespaces)),
              let last = Int64(parts[1].trimmingCharacters(in: .whitespaces)), first >= 0, last >= first, last < Int64.max / 2 else {
            throw .invalid("the byte range “\(text)” is not FIRST-LAST")
        }
        return DASHRange(first: first, last: last)
    }

    /// An `xs:duration` ("PT1H2M3.5S", "P1DT2H") in seconds; years and months as 365 and 30 days.
    static func seconds(_ text: String) throws(DASHRefusal) -> Double {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasPrefix("P") else { throw .invalid("the duration “\(text)” is not an ISO 8601 duration") }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var any = false
        for character in rest {
            if character == "T" {
                guard !inTime, number.isEmpty else { throw .invalid("the duration “\(text)” is not an ISO 8601 duration") }
                inTime = true
            } else if character.isNumber || character == "." {
                number.append(character)
            } else {
                guard let value = Double(number), value.isFinite else {
                    throw .invalid("the duration “\(text)” is not an ISO 8601 duration")
                }
                let unit: Double? = switch (inTime, character) {
                case (false, "Y"): 365 * 86_400
                case (false, "M"): 30 * 86_400
                case (false, "W"): 7 * 86_400
                case (false, "D"): 86_400
                case (true, "H"): 3_600
                case (true, "M"): 60
                case (true, "S"): 1
                default: nil
                }
                guard let unit else { throw .invalid("the duration “\(text)” is not an ISO 8601 duration") }
                total += value * unit
                number = ""
                any = true
            }
        }
        guard any, number.isEmpty, total.isFinite, total < 1e9 else {
            throw .invalid("the duration “\(text)” is not an ISO 8601 duration")
        }
        return total
    }

    /// A `ContentProtection`'s scheme for people: the DRM systems' names, else its value or URI.
    private static func protectionName(_ attributes: [String: String]) -> String {
        let scheme = (attributes["schemeIdUri"] ?? "").lowercased()
        let known = [
            "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine", "9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
            "e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey", "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "ClearKey",
            "94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay", "f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
        ]
        if let name = known.first(where: { scheme.contains($0.key) })?.value { return name }
        if scheme == "urn:mpeg:dash:mp4protection:2011", let value = attributes["value"], !value.isEmpty { return value }
        return attributes["schemeIdUri"] ?? "ContentProtection"
    }
}

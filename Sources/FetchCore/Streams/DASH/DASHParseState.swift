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
        var initialization: (url: String?, range: DASHRange?)?
        var urls: [(media: String?, range: DASHRange?)]?
    }

    /// What one level (Period, AdaptationSet, Representation) says about its segments.
    typealias Segments = [SegmentElement.Kind: SegmentElement]

    private let base: String
    private var stack: [String] = []
    private var isDynamic = false
    private var duration: Double?
    private var periods: [DASHPeriod] = []
    /// Each level's BaseURLs in order: the first, then the same content elsewhere.
    private var mpdBaseURLs: [String] = []

    private var period: DASHPeriod?
    private var periodBaseURLs: [String] = []
    private var periodSegments: Segments = [:]

    private var adaptation: DASHAdaptationSet?
    private var adaptationAttributes: [String: String] = [:]
    private var adaptationBaseURLs: [String] = []
    private var adaptationSegments: Segments = [:]
    private var adaptationProtection: String?
    private var adaptationEssential: String?

    private var representation: [String: String]?
    private var representationBaseURLs: [String] = []
    private var representationSegments: Segments = [:]
    private var representationProtection: String?
    private var representationEssential: String?

    private var segment: SegmentElement?
    private var text: String?
    private var entries = 0
    private var representations = 0

    init(base: String) { self.base = base }

    /// BaseURLs kept per level: more are the same content at yet more places.
    static let baseURLLimit = 4

    mutating func open(_ name: String, _ values: [String: String]) throws(DASHRefusal) {
        let parent = stack.last
        defer { stack.append(name) }
        let attributes = Attributes(element: name, values: values)
        guard let parent else {
            guard name == "MPD" else { throw .notMPD(name) }
            // A static manifest's availabilityStartTime, publishTime and the like say when a
            // live one would be there: nothing here reads them.
            if values["type"] == "dynamic" { throw .live }
            duration = try attributes.duration("mediaPresentationDuration")
            return
        }
        switch (parent, name) {
        case (_, "BaseURL") where ["MPD", "Period", "AdaptationSet", "Representation"].contains(parent):
            text = ""
        case ("MPD", "Period"):
            guard periods.count < DASHManifestParser.periodLimit else {
                throw .tooLarge("more than \(DASHManifestParser.periodLimit) Periods")
            }
            period = DASHPeriod(id: values["id"], start: try attributes.duration("start"),
                                duration: try attributes.duration("duration"), adaptationSets: [])
            periodBaseURLs = []
            periodSegments = [:]
        case ("Period", "AdaptationSet"):
            adaptation = DASHAdaptationSet(contentType: values["contentType"], mimeType: values["mimeType"],
                                           language: values["lang"], roles: [], representations: [])
            adaptationAttributes = values
            adaptationBaseURLs = []
            adaptationSegments = [:]
            adaptationProtection = nil
            adaptationEssential = nil
        case ("AdaptationSet", "Role"):
            if let value = values["value"] { adaptation?.roles.append(value.lowercased()) }
        case ("AdaptationSet", "ContentProtection"):
            adaptationProtection = adaptationProtection ?? Self.protectionName(values)
        case ("Representation", "ContentProtection"):
            representationProtection = representationProtection ?? Self.protectionName(values)
        case ("AdaptationSet", "EssentialProperty"):
            adaptationEssential = adaptationEssential ?? Self.unknownEssential(values)
        case ("Representation", "EssentialProperty"):
            representationEssential = representationEssential ?? Self.unknownEssential(values)
        case ("AdaptationSet", "Representation"):
            representations += 1
            guard representations <= DASHManifestParser.representationLimit else {
                throw .tooLarge("more than \(DASHManifestParser.representationLimit) Representations")
            }
            representation = values
            representationBaseURLs = []
            representationSegments = [:]
            representationProtection = nil
            representationEssential = nil
        case (_, "SegmentTemplate") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .template, attributes: values)
        case (_, "SegmentList") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .list, attributes: values)
        case (_, "SegmentBase") where ["Period", "AdaptationSet", "Representation"].contains(parent):
            segment = SegmentElement(kind: .base, attributes: values)
        case ("SegmentTemplate", "SegmentTimeline"), ("SegmentList", "SegmentTimeline"):
            segment?.timeline = []
        case ("SegmentTimeline", "S"):
            try count()
            guard let d = try attributes.whole("d", atLeast: 1) else { throw .invalid("S@d is missing") }
            segment?.timeline?.append(DASHTimelineEntry(time: try attributes.whole("t", atLeast: 0), duration: d,
                                                        repeats: try attributes.whole("r", atLeast: -1) ?? 0))
        case ("SegmentBase", "Initialization"), ("SegmentList", "Initialization"), ("SegmentTemplate", "Initialization"),
             ("SegmentBase", "Initialisation"), ("SegmentList", "Initialisation"):
            segment?.initialization = (values["sourceURL"], try attributes.range("range"))
        case ("SegmentList", "SegmentURL"):
            try count()
            if segment != nil {
                if segment!.urls == nil { segment!.urls = [] }
                segment!.urls!.append((values["media"], try attributes.range("mediaRange")))
            }
        default:
            // SupplementalProperty, Accessibility, Label, EventStream…: what a player may use,
            // never needed to save the video.
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
            // The first BaseURL of a level, then the same content elsewhere.
            switch level {
            case "MPD": Self.keep(value, in: &mpdBaseURLs)
            case "Period": Self.keep(value, in: &periodBaseURLs)
            case "AdaptationSet": Self.keep(value, in: &adaptationBaseURLs)
            case "Representation": Self.keep(value, in: &representationBaseURLs)
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

    private func finishRepresentation(_ values: [String: String]) throws(DASHRefusal) -> DASHRepresentation {
        let attributes = Attributes(element: "Representation", values: values)
        let id = values["id"] ?? ""
        guard let bandwidth = try attributes.whole("bandwidth", atLeast: 0) else {
            throw .invalid("Representation@bandwidth of “\(id)” is missing")
        }
        let inherited = { (name: String) in values[name] ?? adaptationAttributes[name] }
        let size = { (name: String) throws(DASHRefusal) -> Int? in
            let level = values[name] != nil ? attributes : Attributes(element: "AdaptationSet", values: adaptationAttributes)
            return try level.whole(name, atLeast: 0).map { Int(clamping: $0) }
        }
        let bases = try baseURLs()
        let mimeType = inherited("mimeType")
        let isText = inherited("contentType")?.lowercased() == "text" || DASHAdaptationSet.isText(mimeType: mimeType ?? "")
        return DASHRepresentation(id: id, bandwidth: Int(clamping: bandwidth), width: try size("width"), height: try size("height"),
                                  codecs: (inherited("codecs") ?? "").split(separator: ",")
                                      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                                  mimeType: mimeType, baseURL: bases[0],
                                  segments: try source(id: id, isText: isText),
                                  protection: representationProtection ?? adaptationProtection,
                                  essential: representationEssential ?? adaptationEssential,
                                  mirrors: Array(bases.dropFirst()))
    }

    /// The Representation's BaseURL resolved through the Period's, the MPD's and the manifest's
    /// own address, first with each level's first BaseURL, then with the others (the same
    /// content elsewhere), at most `mirrorLimit` of those.
    private func baseURLs() throws(DASHRefusal) -> [String] {
        var results = [base]
        for level in [mpdBaseURLs, periodBaseURLs, adaptationBaseURLs, representationBaseURLs] where !level.isEmpty {
            var next: [String] = []
            for url in results {
                for link in level {
                    guard let resolved = RelativeLink.resolve(link, against: url) else { throw .unsafeLink(link) }
                    if !next.contains(resolved) { next.append(resolved) }
                }
            }
            results = Array(next.prefix(1 + DASHRepresentation.mirrorLimit))
        }
        return results
    }

    /// The most specific level's kind of segment element, merged over the same kind above it;
    /// none in a text Representation: the one file at its BaseURL.
    private func source(id: String, isText: Bool) throws(DASHRefusal) -> DASHSegmentSource {
        let levels = [representationSegments, adaptationSegments, periodSegments]
        guard let kind = levels.lazy.compactMap({ $0.keys.min(by: { $0.rawValue < $1.rawValue }) }).first else {
            if isText { return .file }
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
        let element = ["SegmentTemplate", "SegmentList", "SegmentBase"][kind.rawValue]
        let attributes = Attributes(element: element, values: merged.attributes)
        let timescale = try attributes.whole("timescale", atLeast: 1) ?? 1
        let duration = try attributes.positive("duration")
        let initialization = merged.initialization.map { DASHURLRange(url: $0.url, range: $0.range) }
        switch kind {
        case .template:
            guard let media = merged.attributes["media"] else { throw .invalid("SegmentTemplate@media of “\(id)” is missing") }
            var template = DASHTemplate(media: media, initialization: merged.attributes["initialization"] ?? initialization?.url)
            template.timescale = timescale
            template.duration = duration
            template.timeline = merged.timeline
            template.startNumber = try attributes.whole("startNumber", atLeast: 0) ?? 1
            template.presentationTimeOffset = try attributes.whole("presentationTimeOffset", atLeast: 0) ?? 0
            guard template.timeline != nil || template.duration != nil else {
                throw .invalid("the SegmentTemplate of “\(id)” has neither a SegmentTimeline nor a duration")
            }
            return .template(template)
        case .list:
            let urls = (merged.urls ?? []).map { DASHURLRange(url: $0.media, range: $0.range) }
            guard !urls.isEmpty else { throw .invalid("the SegmentList of “\(id)” has no SegmentURL") }
            return .list(DASHList(initialization: initialization, timescale: timescale, duration: duration,
                                  timeline: merged.timeline, segments: urls))
        case .base:
            return .base(DASHBase(initialization: initialization, indexRange: try attributes.range("indexRange"),
                                  timescale: timescale))
        }
    }

    // MARK: Values

    /// An element's attributes read as the schema types them; one that is not of its type is
    /// refused with its element and attribute named ("the duration “PT1X” of
    /// MPD@mediaPresentationDuration is not an xs:duration").
    struct Attributes {
        let element: String
        let values: [String: String]

        private func refuse(_ kind: String, _ text: String, _ name: String, _ expected: String) -> DASHRefusal {
            .invalid("the \(kind) “\(text)” of \(element)@\(name) is not \(expected)")
        }

        /// Seconds, from an `xs:duration`.
        func duration(_ name: String) throws(DASHRefusal) -> Double? {
            guard let text = values[name] else { return nil }
            guard let seconds = DASHValue.duration(text) else { throw refuse("duration", text, name, "an xs:duration") }
            return seconds
        }

        /// A whole number of at least `minimum` (written as one, or as a double with a whole value).
        func whole(_ name: String, atLeast minimum: Int64) throws(DASHRefusal) -> Int64? {
            guard let text = values[name] else { return nil }
            guard let value = DASHValue.whole(text), value >= minimum else {
                throw refuse("number", text, name, minimum == 1 ? "a positive whole number" : "a whole number of \(minimum) or more")
            }
            return value
        }

        /// A number above 0, maybe with a fraction or an exponent.
        func positive(_ name: String) throws(DASHRefusal) -> Double? {
            guard let text = values[name] else { return nil }
            guard let value = DASHValue.double(text), value > 0 else { throw refuse("number", text, name, "a positive number") }
            return value
        }

        func range(_ name: String) throws(DASHRefusal) -> DASHRange? {
            guard let text = values[name] else { return nil }
            guard let range = DASHValue.range(text) else { throw refuse("byte range", text, name, "FIRST-LAST") }
            return range
        }
    }

    private static func keep(_ link: String, in level: inout [String]) {
        if level.count < baseURLLimit { level.append(link) }
    }

    /// An `EssentialProperty`'s scheme when Fetchplay does not know it (then what it is on cannot
    /// be used, ISO/IEC 23009-1 §5.8.4.8); nil for the colour descriptions a remux carries as
    /// they are.
    private static func unknownEssential(_ values: [String: String]) -> String? {
        let scheme = values["schemeIdUri"] ?? ""
        let understood = ["urn:mpeg:mpegB:cicp:ColourPrimaries", "urn:mpeg:mpegB:cicp:TransferCharacteristics",
                          "urn:mpeg:mpegB:cicp:MatrixCoefficients"]
        return understood.contains(scheme) ? nil : (scheme.isEmpty ? "EssentialProperty" : scheme)
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

@testable import FetchCore
import Foundation
import Testing

/// The DASH manifest parser and the segment lists made from it, on hand-written manifests:
/// what it reads, how it resolves links, and what it refuses, and how fast (at once, with
/// little memory, for hostile ones).
struct DASHManifestParserTests {
    static let base = "https://cdn.example.org/show/manifest.mpd?token=abc"

    private func parse(_ text: String, base: String = Self.base) throws(DASHRefusal) -> DASHManifest {
        try DASHManifestParser.parse(Array(text.utf8), base: base)
    }

    private func refusal(_ text: String) -> DASHRefusal? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    /// A manifest with `body` inside one Period of `duration`.
    private func mpd(_ body: String, duration: String = "PT8S", attributes: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="\(duration)" \(attributes)>
          <Period id="p0">\(body)</Period>
        </MPD>
        """
    }

    private func track(_ manifest: DASHManifest, period: Int = 0, set: Int = 0, representation: Int = 0) throws -> StreamTrack {
        let p = manifest.periods[period]
        return try #require(try DASHSegmentTemplate.track(of: p.adaptationSets[set].representations[representation],
                                                          periodDuration: p.duration))
    }

    @Test func aTimelineWithRepeatsAndANegativeRepeat() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video" mimeType="video/mp4">
              <SegmentTemplate timescale="1000" initialization="init-$RepresentationID$.mp4" media="$RepresentationID$/$Time$.m4s">
                <SegmentTimeline><S t="0" d="2000" r="1"/><S d="1000"/><S t="5000" d="1000" r="-1"/></SegmentTimeline>
              </SegmentTemplate>
              <Representation id="v1" bandwidth="800000" width="640" height="360" codecs="avc1.42c01e"/>
            </AdaptationSet>
            """))
        let track = try track(manifest)
        #expect(track.segments.map(\.url) == ["0", "2000", "4000", "5000", "6000", "7000"].map {
            "https://cdn.example.org/show/v1/\($0).m4s"
        })
        #expect(track.segments.map(\.duration) == [2, 2, 1, 1, 1, 1])
        #expect(track.sections.first?.url == "https://cdn.example.org/show/init-v1.mp4")
        #expect(manifest.periods[0].duration == 8)
    }

    @Test func aFixedDurationWithStartNumberAndAWidth() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet mimeType="audio/mp4" lang="en">
              <Representation id="a" bandwidth="64000">
                <SegmentTemplate timescale="48000" duration="96000" startNumber="7"
                  media="seg-$Number%05d$-$Bandwidth$-$$.m4s" initialization="init.mp4"/>
              </Representation>
            </AdaptationSet>
            """, duration: "PT7.5S"))
        let track = try track(manifest)
        #expect(track.segments.count == 4)
        #expect(track.segments.first?.url == "https://cdn.example.org/show/seg-00007-64000-$.m4s")
        #expect(track.segments.last?.url == "https://cdn.example.org/show/seg-00010-64000-$.m4s")
        #expect(track.segments.map(\.duration) == [2, 2, 2, 1.5])
    }

    @Test func templateIdentifiers() throws {
        let representation = DASHRepresentation(id: "v1", bandwidth: 1_500_000, codecs: [], baseURL: Self.base,
                                                segments: .template(DASHTemplate()))
        #expect(try DASHSegmentTemplate.fill("$RepresentationID$_$Number%03d$_$Time%012d$_$Bandwidth%d$", representation,
                                             number: 5, time: 90_000) == "v1_005_000000090000_1500000")
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.fill("$SubNumber$", representation, number: 1, time: 0) }
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.fill("seg-$Number", representation, number: 1, time: 0) }
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.fill("$Number%5x$", representation, number: 1, time: 0) }
    }

    @Test func aSegmentListOfMediaRangesIntoOneFile() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video">
              <Representation id="0" bandwidth="2000000" mimeType="video/mp4">
                <BaseURL>media/video.mp4</BaseURL>
                <SegmentList timescale="1000000" duration="1000000">
                  <Initialization range="0-808"/>
                  <SegmentURL mediaRange="809-240798"/>
                  <SegmentURL mediaRange="240799-482753"/>
                  <SegmentURL media="tail.m4s"/>
                </SegmentList>
              </Representation>
            </AdaptationSet>
            """))
        let track = try track(manifest)
        let file = "https://cdn.example.org/show/media/video.mp4"
        #expect(track.sections == [InitSection(url: file, range: ByteSpan(offset: 0, length: 809))])
        #expect(track.segments.allSatisfy { $0.section == 0 })
        #expect(track.segments.map(\.url) == [file, file, "https://cdn.example.org/show/media/tail.m4s"])
        #expect(track.segments.map(\.range) == [ByteSpan(offset: 809, length: 239_990), ByteSpan(offset: 240_799, length: 241_955), nil])
        #expect(track.segments.map(\.duration) == [1, 1, 1])
    }

    @Test func segmentBaseReadsItsIndexRangeFromTheSidx() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video">
              <Representation id="v" bandwidth="1" mimeType="video/mp4">
                <BaseURL>video.mp4</BaseURL>
                <SegmentBase indexRange="773-860"/>
              </Representation>
            </AdaptationSet>
            """))
        let representation = manifest.periods[0].adaptationSets[0].representations[0]
        #expect(try DASHSegmentTemplate.track(of: representation, periodDuration: 8) == nil)
        // A version 0 sidx: timescale 1000, first offset 10, two references of 100 and 200 bytes.
        var sidx: [UInt8] = [0, 0, 0, 0] + be32(1) + be32(1000) + be32(0) + be32(10) + [0, 0, 0, 2]
        sidx += be32(100) + be32(2000) + be32(0x9000_0000) + be32(200) + be32(1500) + be32(0x9000_0000)
        let box = be32(UInt32(8 + sidx.count)) + Array("sidx".utf8) + sidx
        let track = try DASHSegmentTemplate.track(of: representation, index: box)
        let anchor = Int64(773 + box.count) + 10
        #expect(track.segments.map(\.range) == [ByteSpan(offset: anchor, length: 100), ByteSpan(offset: anchor + 100, length: 200)])
        #expect(track.segments.map(\.duration) == [2, 1.5])
        #expect(track.sections == [InitSection(url: "https://cdn.example.org/show/video.mp4", range: ByteSpan(offset: 0, length: 773))])
        // A hierarchy, or bytes that are no sidx, are refused.
        var nested = box
        nested[8 + 24] |= 0x80
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.track(of: representation, index: nested) }
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.track(of: representation, index: Array(box.prefix(30))) }
        #expect(throws: DASHRefusal.self) { try DASHSegmentTemplate.track(of: representation, index: Array(repeating: 0, count: 64)) }
    }

    private func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    @Test func baseURLsNestAndResolveAgainstTheManifestsFinalAddress() throws {
        let manifest = try parse("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT2S">
              <BaseURL>https://media.example.net/root/</BaseURL>
              <Period duration="PT2S">
                <BaseURL>period/</BaseURL>
                <AdaptationSet contentType="video">
                  <BaseURL>/abs/set/</BaseURL>
                  <SegmentTemplate media="$Number$.m4s" duration="1"/>
                  <Representation id="v" bandwidth="1"><BaseURL>rep/</BaseURL></Representation>
                  <Representation id="w" bandwidth="2"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        let set = manifest.periods[0].adaptationSets[0]
        #expect(set.representations.map(\.baseURL) == ["https://media.example.net/abs/set/rep/", "https://media.example.net/abs/set/"])
        #expect(try track(manifest).segments.map(\.url) == ["https://media.example.net/abs/set/rep/1.m4s",
                                                           "https://media.example.net/abs/set/rep/2.m4s"])
        // Without an MPD BaseURL: the manifest's own (final) address.
        let relative = try parse(mpd("""
            <AdaptationSet contentType="audio"><BaseURL>../a/</BaseURL>
              <Representation id="x" bandwidth="1"><SegmentTemplate media="s$Number$" duration="4"/></Representation>
            </AdaptationSet>
            """), base: "http://127.0.0.1:8080/after/redirect/index.mpd")
        #expect(try track(relative).segments.first?.url == "http://127.0.0.1:8080/after/a/s1")
    }

    @Test func severalPeriodsJoinInOrderWithTheSameRepresentation() throws {
        let manifest = try parse("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S">
              <Period id="one" duration="PT2S">
                <AdaptationSet contentType="video"><SegmentTemplate media="one/$RepresentationID$-$Number$.m4s" duration="1"/>
                  <Representation id="hi" bandwidth="900" height="720"/><Representation id="lo" bandwidth="300" height="360"/>
                </AdaptationSet>
              </Period>
              <Period id="two">
                <AdaptationSet contentType="video"><SegmentTemplate media="two/$RepresentationID$-$Number$.m4s" duration="2"/>
                  <Representation id="lo" bandwidth="300" height="360"/><Representation id="hi" bandwidth="900" height="720"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        #expect(manifest.periods.map(\.start) == [0, 2])
        #expect(manifest.periods.map(\.duration) == [2, 4])
        let choice = try DASHChoice.choose(manifest, quality: "480p", languages: [])
        #expect(choice.video.map { $0?.id } == ["lo", "lo"])
        #expect(choice.label == "360p")
        // The Periods joined into one track, each segment marked with its Period's start.
        var media = StreamTrack(segments: [])
        for (period, video) in zip(manifest.periods, choice.video) {
            let track = try #require(try video.flatMap { try DASHSegmentTemplate.track(of: $0, periodDuration: period.duration) })
            media.join(track, start: period.start, periods: manifest.periods.count)
        }
        #expect(media.segments.map(\.url) == ["one/lo-1", "one/lo-2", "two/lo-1", "two/lo-2"].map { "https://cdn.example.org/show/\($0).m4s" })
        #expect(media.segments.map(\.periodStart) == [0, 0, 2, 2])
        #expect(media.duration == 6)
    }

    @Test func audioByTheDesktopsLanguageElseMainElseFirst() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="audio" lang="fr"><Representation id="fr" bandwidth="1"><SegmentTemplate media="fr$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet contentType="audio" lang="en"><Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
              <Representation id="en" bandwidth="1"><SegmentTemplate media="en$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet contentType="audio" lang="zh-Hans"><Representation id="zh" bandwidth="1"><SegmentTemplate media="zh$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1"><SegmentTemplate media="v$Number$" duration="8"/></Representation></AdaptationSet>
            """))
        #expect(try DASHChoice.choose(manifest, languages: ["zh", "en"]).audio.map { $0?.id } == ["zh"])
        #expect(try DASHChoice.choose(manifest, languages: ["de"]).audio.map { $0?.id } == ["en"])
        #expect(try DASHChoice.choose(manifest, languages: ["fr"]).audio.map { $0?.id } == ["fr"])
        let variants = DASHChoice.variants(manifest, url: Self.base, languages: ["de"])
        #expect(variants.map(\.representation) == ["v"] && variants.first?.audio.first?.name == "en")
    }

    @Test func kindsFromTypesElseFormatsElseSizes() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet><Representation id="v" bandwidth="1" codecs="avc1.64001f"><SegmentTemplate media="v$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet><Representation id="a" bandwidth="1" codecs="mp4a.40.2"><SegmentTemplate media="a$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet><Representation id="s" bandwidth="1" width="320" height="180"><SegmentTemplate media="s$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet mimeType="application/ttml+xml"><Representation id="t" bandwidth="1"><SegmentTemplate media="t$Number$" duration="8"/></Representation></AdaptationSet>
            <AdaptationSet contentType="image"><Representation id="i" bandwidth="1"><SegmentTemplate media="i$Number$" duration="8"/></Representation></AdaptationSet>
            """))
        #expect(manifest.periods[0].adaptationSets.map(\.kind) == ["video", "audio", "video", "text", "image"])
    }

    @Test func anAudioOnlyPresentationIsSavedAsItsAudio() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="audio"><Representation id="a" bandwidth="128000" codecs="mp4a.40.2">
              <SegmentTemplate media="a$Number$" duration="4"/></Representation></AdaptationSet>
            """))
        let choice = try DASHChoice.choose(manifest, languages: [])
        #expect(choice.video.map { $0?.id } == ["a"] && choice.audio.map { $0?.id } == [nil])
    }

    @Test func videoVariantsAndQuality() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video" mimeType="video/mp4"><SegmentTemplate media="$RepresentationID$/$Number$" duration="2"/>
              <Representation id="360" bandwidth="500000" width="640" height="360" codecs="avc1.4d401e"/>
              <Representation id="1080" bandwidth="5000000" width="1920" height="1080" codecs="avc1.640028"/>
              <Representation id="720" bandwidth="2500000" width="1280" height="720" codecs="avc1.64001f"/>
            </AdaptationSet>
            """))
        #expect(try DASHChoice.choose(manifest, languages: []).video.first??.id == "1080")
        #expect(try DASHChoice.choose(manifest, quality: "720p", languages: []).video.first??.id == "720")
        #expect(try DASHChoice.choose(manifest, quality: "240", languages: []).video.first??.id == "360")
        #expect(try DASHChoice.choose(manifest, representation: "720", languages: []).label == "720p")
        #expect(DASHChoice.variants(manifest, url: Self.base, languages: []).map(\.label) == ["1080p", "720p", "360p"])
    }

    // MARK: Refused

    @Test func aDynamicManifestIsRefusedAsLive() {
        #expect(refusal(mpd("", attributes: "").replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\"")) == .live)
        #expect(DownloadError.refusedManifest(.live).message.contains("live"))
    }

    @Test func contentProtectionIsRefusedWithTheSchemesName() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video">
              <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc"/>
              <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"/>
              <Representation id="v" bandwidth="1"><SegmentTemplate media="$Number$" duration="2"/></Representation>
            </AdaptationSet>
            """))
        #expect(throws: DASHRefusal.protected("cenc")) { try DASHChoice.choose(manifest, languages: []) }
        #expect(DASHRefusal.protected("Widevine").message.contains("DRM (Widevine)"))
    }

    @Test func anEntityBombIsRefusedAtOnce() {
        var bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE MPD [\n<!ENTITY a0 \"dash\">\n"
        for level in 1...10 { bomb += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">\n" }
        bomb += "]>\n<MPD type=\"static\"><Period><BaseURL>&a10;</BaseURL></Period></MPD>"
        let started = ContinuousClock.now
        #expect(refusal(bomb) == .declarations)
        // An external entity too (no file is read, nothing fetched).
        #expect(refusal("<?xml version=\"1.0\"?><!DOCTYPE MPD SYSTEM \"file:///etc/passwd\"><MPD/>") == .declarations)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func hugeRepeatCountsAreRefusedNotLoopedOver() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="$Time$"><SegmentTimeline><S t="0" d="1" r="2000000000"/></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet>
            """, duration: "PT100000000S"))
        #expect(throws: DASHRefusal.tooLarge("more than 100000 segments")) { try track(manifest) }
        let fixed = try parse(mpd("""
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="$Number$" timescale="1000" duration="1"/></Representation></AdaptationSet>
            """, duration: "P30Y"))
        #expect(throws: DASHRefusal.self) { try track(fixed) }
        let negative = try parse(mpd("""
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="$Time$"><SegmentTimeline><S t="0" d="1" r="-1"/></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet>
            """, duration: "PT100000000S"))
        #expect(throws: DASHRefusal.tooLarge("more than 100000 segments")) { try track(negative) }
    }

    @Test func aFileBaseURLIsRefused() throws {
        #expect(refusal(mpd("""
            <BaseURL>file:///etc/</BaseURL>
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1"><SegmentTemplate media="passwd" duration="8"/></Representation></AdaptationSet>
            """)) == .unsafeLink("file:///etc/"))
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentList duration="8"><SegmentURL media="ftp://example.org/x.m4s"/></SegmentList></Representation></AdaptationSet>
            """))
        #expect(throws: DASHRefusal.unsafeLink("ftp://example.org/x.m4s")) { try track(manifest) }
    }

    @Test func textThatIsNotXMLOrNotAnMPD() {
        guard case .notXML(let detail)? = refusal("#EXTM3U\nthis is not xml <MPD") else {
            Issue.record("not refused as not XML"); return
        }
        #expect(detail.contains("line 1"), "\(detail)")
        guard case .notXML? = refusal("<MPD><Period></MPD>") else { Issue.record("a broken MPD was read"); return }
        #expect(refusal("") == .notXML("it is empty"))
        #expect(refusal("<?xml version=\"1.0\"?><html><body>Not found</body></html>") == .notMPD("html"))
        #expect(DASHRefusal.notMPD("html").message.contains("not a DASH manifest"))
    }

    @Test func aRepresentationWithoutSegmentsIsRefused() {
        #expect(refusal(mpd("""
            <AdaptationSet contentType="video"><Representation id="bare" bandwidth="1"/></AdaptationSet>
            """)) == .invalid("the Representation “bare” lists no segments"))
        #expect(refusal(mpd("<AdaptationSet contentType=\"video\"><Representation id=\"v\"><SegmentTemplate media=\"x\" duration=\"1\"/></Representation></AdaptationSet>"))
                == .invalid("Representation@bandwidth of “v” is missing"))
        #expect(refusal("<MPD type=\"static\"/>") == .invalid("it has no Period"))
    }

    // MARK: Memory

    /// Resident bytes now (`/proc/self/statm`).
    private static func residentBytes() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's peak resident bytes so far (`getrusage`: kilobytes).
    private static func peakBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    /// A manifest of `lines` `S` lines (plus a few), as long as the longest real presentations
    /// and longer.
    private func longManifest(lines: Int) -> [UInt8] {
        var text = "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" mediaPresentationDuration=\"PT\(lines * 2)S\">\n<Period>\n"
        text += "<AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\">\n"
        text += "<SegmentTemplate timescale=\"1000\" media=\"https://cdn.example.org/very/long/path/to/the/segments/of/v/$Time$.m4s\"><SegmentTimeline>\n"
        var bytes = Array(text.utf8)
        bytes.reserveCapacity(lines * 16 + 200)
        for _ in 0..<lines { bytes += Array("<S d=\"2000\"/>\n".utf8) }
        bytes += Array("</SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>\n".utf8)
        return bytes
    }

    /// The peak since `before` is under 300 MiB. Not under ThreadSanitizer (`scripts/test-tsan`),
    /// whose shadow memory counts in the peak.
    private func expectLittleMemory(since before: Int) {
        guard ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil else { return }
        #expect(Self.peakBytes() - before < 300 << 20, "peak \(Self.peakBytes() >> 20) MiB, before \(before >> 20) MiB")
    }

    @Test func aManifestOfHalfAMillionLinesIsRefusedWithLittleMemory() {
        let manifest = longManifest(lines: 500_000)
        let before = Self.residentBytes()
        #expect(throws: DASHRefusal.tooLarge("more than 100000 segments")) {
            try DASHManifestParser.parse(manifest, base: Self.base)
        }
        // The peak since `before` is below the one now, which bounds what the parse took.
        expectLittleMemory(since: before)
    }

    @Test func theLongestManifestAllowedIsKeptAndReadBackWithLittleMemory() throws {
        let manifest = longManifest(lines: 99_000)
        let before = Self.residentBytes()
        let parsed = try DASHManifestParser.parse(manifest, base: Self.base)
        let track = try track(parsed)
        // As the record keeps it, and reads it back.
        let part = PresentationPart(mediaURL: Self.base, tracks: [track])
        let data = try JSONEncoder().encode(part)
        #expect(data.count < PresentationFolder.recordLimit)
        let read = try JSONDecoder().decode(PresentationPart.self, from: data)
        #expect(read.tracks[0].segments.count == 99_000)
        expectLittleMemory(since: before)
    }
}

@testable import FetchCore
import Foundation
import Testing

/// Manifests as packagers and CDNs write them, read as the DASH schema types them: durations
/// and doubles in every lexical form, properties, several BaseURLs, subtitle files, paths with
/// `..`, live timing on static manifests; and each refusal naming its element and attribute.
struct DASHRealManifestTests {
    static let base = "https://cdn.example.org/show/manifest.mpd"

    private func parse(_ text: String, base: String = Self.base) throws(DASHRefusal) -> DASHManifest {
        try DASHManifestParser.parse(Array(text.utf8), base: base)
    }

    private func refusal(_ text: String) -> DASHRefusal? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    private func mpd(_ body: String, duration: String = "PT8S", attributes: String = "", top: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="\(duration)" \(attributes)>\(top)
          <Period id="p0">\(body)</Period>
        </MPD>
        """
    }

    private func track(_ manifest: DASHManifest, set: Int = 0, representation: Int = 0) throws -> StreamTrack {
        let period = manifest.periods[0]
        return try #require(try DASHSegmentTemplate.track(of: period.adaptationSets[set].representations[representation],
                                                          periodDuration: period.duration))
    }

    private static let video = """
        <AdaptationSet contentType="video"><Representation id="v" bandwidth="1"><SegmentTemplate media="v$Number$.m4s" duration="2"/></Representation></AdaptationSet>
        """

    // MARK: Values

    @Test(arguments: [
        ("P0Y0M0DT0H3M30.000S", 210.0), ("PT1H", 3600), ("PT0.5S", 0.5), ("P1DT2H", 93_600), ("PT1M", 60),
        ("PT1H2M3.5S", 3723.5), ("P1W", 604_800), ("PT0S", 0), ("PT4.0S", 4), (" PT4S ", 4), ("PT1.5M", 90),
        ("P0D", 0), ("PT36H", 129_600), ("P1Y", 31_536_000), ("PT.5S", 0.5),
    ])
    func anXSDurationInEachForm(_ text: String, _ seconds: Double) throws {
        #expect(DASHValue.duration(text) == seconds, "\(text)")
        let manifest = try parse(mpd(Self.video, duration: text))
        #expect(manifest.duration == seconds)
    }

    @Test(arguments: ["PT1X", "P", "PT", "P1DT", "PT1.5H30M", "PT1M1H", "PT1H1H", "4S", "P-1D", "-PT1S", "PT.S", "PT1..5S",
                      "PT١S", "P1H", "PTT1S", "PT1S2", "", "PT1e3S", "P99999999999D"])
    func notAnXSDurationNamesItsElementAndAttribute(_ text: String) {
        #expect(DASHValue.duration(text) == nil, "\(text)")
        #expect(refusal(mpd(Self.video, duration: text))
                    == .invalid("the duration “\(text)” of MPD@mediaPresentationDuration is not an xs:duration"))
    }

    @Test func doublesWithAFractionOrAnExponent() {
        let doubles: [(String, Double?)] = [("30", 30), ("29.97", 29.97), ("1.5E3", 1500), ("-2e-1", -0.2), (".5", 0.5), ("5.", 5),
                                           ("+1", 1), ("1E+2", 100), ("INF", nil), ("NaN", nil), ("0x10", nil), ("1e", nil),
                                           ("e5", nil), ("1.2.3", nil), ("", nil), ("1e99999", nil), ("1,5", nil), ("٣", nil)]
        for (text, value) in doubles { #expect(DASHValue.double(text) == value, "\(text)") }
        let wholes: [(String, Int64?)] = [("1.5E3", 1500), ("2000.0", 2000), ("12", 12), ("-1", -1), ("1.5", nil), ("1e300", nil), ("x", nil)]
        for (text, value) in wholes { #expect(DASHValue.whole(text) == value, "\(text)") }
    }

    @Test func timescalesAndDurationsWrittenAsDoubles() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video" frameRate="30000/1001" maxFrameRate="29.97">
              <Representation id="v" bandwidth="2.5E6" width="1.28E3" height="720" frameRate="29.97" maxPlayoutRate="1.5E0">
                <SegmentTemplate timescale="1.5E3" duration="3.0E3" startNumber="1.0" media="$Number$.m4s"/>
              </Representation>
            </AdaptationSet>
            <AdaptationSet contentType="audio">
              <Representation id="a" bandwidth="64000"><SegmentTemplate timescale="1000" duration="1500.5" media="a$Number$.m4s"/></Representation>
            </AdaptationSet>
            """, duration: "PT6S", attributes: "maxSegmentDuration=\"PT2.000S\" minBufferTime=\"PT1.500S\""))
        let video = manifest.periods[0].adaptationSets[0].representations[0]
        #expect(video.bandwidth == 2_500_000 && video.width == 1280)
        #expect(try track(manifest).segments.map(\.duration) == [2, 2, 2])
        let audio = try track(manifest, set: 1)
        #expect(audio.segments.count == 4)
        #expect(abs(audio.segments.map(\.duration).reduce(0, +) - 6) < 1e-9)
        #expect(abs(audio.segments[0].duration - 1.5005) < 1e-9)
    }

    @Test(arguments: [
        ("<SegmentTemplate media=\"$Number$\" timescale=\"0\" duration=\"1\"/>",
         "the number “0” of SegmentTemplate@timescale is not a positive whole number"),
        ("<SegmentTemplate media=\"$Number$\" timescale=\"1.5\" duration=\"1\"/>",
         "the number “1.5” of SegmentTemplate@timescale is not a positive whole number"),
        ("<SegmentTemplate media=\"$Number$\" duration=\"-2\"/>", "the number “-2” of SegmentTemplate@duration is not a positive number"),
        ("<SegmentTemplate media=\"$Number$\" duration=\"2\" startNumber=\"one\"/>",
         "the number “one” of SegmentTemplate@startNumber is not a whole number of 0 or more"),
        ("<SegmentTemplate media=\"$Time$\"><SegmentTimeline><S d=\"1.5\"/></SegmentTimeline></SegmentTemplate>",
         "the number “1.5” of S@d is not a positive whole number"),
        ("<SegmentTemplate media=\"$Time$\"><SegmentTimeline><S d=\"1\" r=\"-2\"/></SegmentTimeline></SegmentTemplate>",
         "the number “-2” of S@r is not a whole number of -1 or more"),
        ("<SegmentTemplate media=\"$Time$\"><SegmentTimeline><S t=\"1\"/></SegmentTimeline></SegmentTemplate>", "S@d is missing"),
        ("<SegmentList duration=\"2\"><SegmentURL mediaRange=\"x\"/></SegmentList>",
         "the byte range “x” of SegmentURL@mediaRange is not FIRST-LAST"),
        ("<SegmentBase indexRange=\"9-1\"/>", "the byte range “9-1” of SegmentBase@indexRange is not FIRST-LAST"),
        ("<SegmentTemplate duration=\"2\"/>", "SegmentTemplate@media of “v” is missing"),
    ])
    func aValueThatIsNotOfItsTypeNamesItsElementAndAttribute(_ segments: String, _ detail: String) {
        #expect(refusal(mpd("<AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\">\(segments)</Representation></AdaptationSet>"))
                    == .invalid(detail))
    }

    @Test func otherElementsAndAttributesNamed() {
        #expect(refusal(mpd(Self.video).replacingOccurrences(of: "<Period id=\"p0\">", with: "<Period id=\"p0\" start=\"soon\">"))
                    == .invalid("the duration “soon” of Period@start is not an xs:duration"))
        #expect(refusal(mpd(Self.video.replacingOccurrences(of: "bandwidth=\"1\"", with: "bandwidth=\"fast\"")))
                    == .invalid("the number “fast” of Representation@bandwidth is not a whole number of 0 or more"))
        #expect(refusal(mpd(Self.video.replacingOccurrences(of: "<AdaptationSet contentType=\"video\">",
                                                             with: "<AdaptationSet contentType=\"video\" height=\"tall\">")))
                    == .invalid("the number “tall” of AdaptationSet@height is not a whole number of 0 or more"))
        // In the sentence a person reads.
        #expect(DASHRefusal.invalid("the duration “PT1X” of MPD@mediaPresentationDuration is not an xs:duration").message
                    .contains("MPD@mediaPresentationDuration"))
    }

    @Test func liveTimingOnAStaticManifestIsIgnored() throws {
        let plain = try parse(mpd(Self.video))
        let timed = try parse(mpd(Self.video.replacingOccurrences(of: "duration=\"2\"", with: "duration=\"2\" availabilityTimeOffset=\"1.5\""),
                                  attributes: """
            availabilityStartTime="2024-05-01T10:00:00Z" publishTime="2024-05-01T10:00:05.250+02:00" \
            availabilityEndTime="2099-01-01T00:00:00Z" minimumUpdatePeriod="PT2S" timeShiftBufferDepth="PT30M" \
            suggestedPresentationDelay="PT10S" maxSegmentDuration="PT2S"
            """, top: "<UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-iso:2014\" value=\"https://time.example.org/\"/>"))
        #expect(try track(timed) == track(plain))
    }

    // MARK: Properties

    @Test func anUnknownSupplementalPropertyIsIgnoredAnUnknownEssentialOneIsNotUsed() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video"><SegmentTemplate media="$RepresentationID$/$Number$" duration="2"/>
              <SupplementalProperty schemeIdUri="urn:example:anything" value="1"/>
              <Representation id="1080" bandwidth="5000000" height="1080"><EssentialProperty schemeIdUri="urn:example:new-codec-profile"/></Representation>
              <Representation id="720" bandwidth="2500000" height="720">
                <SupplementalProperty schemeIdUri="urn:example:unknown"/>
                <EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="1"/>
              </Representation>
              <Representation id="360" bandwidth="500000" height="360"/>
            </AdaptationSet>
            <AdaptationSet contentType="video"><EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
              <Representation id="trick" bandwidth="9000000" height="2160"><SegmentTemplate media="t$Number$" duration="2"/></Representation>
            </AdaptationSet>
            """))
        let set = manifest.periods[0].adaptationSets[0]
        #expect(set.representations.map(\.essential) == ["urn:example:new-codec-profile", nil, nil])
        #expect(manifest.periods[0].adaptationSets[1].representations[0].essential == "http://dashif.org/guidelines/trickmode")
        let choice = try DASHChoice.choose(manifest, languages: [])
        #expect(choice.video.map { $0?.id } == ["720"])
        #expect(DASHChoice.variants(manifest, url: Self.base, languages: []).map(\.representation) == ["720", "360"])
        // None left to use: refused, naming the property.
        let only = try parse(mpd("""
            <AdaptationSet contentType="video"><EssentialProperty schemeIdUri="urn:example:x"/>
              <Representation id="v" bandwidth="1"><SegmentTemplate media="$Number$" duration="2"/></Representation></AdaptationSet>
            """))
        #expect(throws: DASHRefusal.invalid("every video Representation has an EssentialProperty@schemeIdUri “urn:example:x” Fetchplay does not know")) {
            try DASHChoice.choose(only, languages: [])
        }
    }

    // MARK: BaseURLs

    @Test func severalBaseURLsGiveEachPieceItsOtherPlaces() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video"><SegmentTemplate media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4" duration="4"/>
              <Representation id="v" bandwidth="1"/></AdaptationSet>
            """, top: """
            <BaseURL serviceLocation="a">https://a.example.com/dash/</BaseURL>
            <BaseURL serviceLocation="b">https://b.example.net/mirror/dash/</BaseURL>
            <BaseURL>/same-host/</BaseURL>
            """))
        let representation = manifest.periods[0].adaptationSets[0].representations[0]
        #expect(representation.baseURL == "https://a.example.com/dash/")
        #expect(representation.mirrors == ["https://b.example.net/mirror/dash/", "https://cdn.example.org/same-host/"])
        let track = try track(manifest)
        #expect(track.segments.map(\.url) == ["https://a.example.com/dash/v/1.m4s", "https://a.example.com/dash/v/2.m4s"])
        // Each rule as general as the two links allow: all of a host's links are elsewhere alike.
        #expect(track.mirrors == [StreamMirror(from: "https://a.example.com/", to: "https://b.example.net/mirror/"),
                                  StreamMirror(from: "https://a.example.com/dash/", to: "https://cdn.example.org/same-host/")])
        // The pool asks the first place, then the others; the one that answered first from then on.
        let mirrors = PieceMirrors([track])
        let url = track.segments[1].url
        #expect(mirrors.links(for: url) == [url, "https://b.example.net/mirror/dash/v/2.m4s", "https://cdn.example.org/same-host/v/2.m4s"])
        mirrors.answered("https://cdn.example.org/same-host/v/2.m4s", for: url)
        #expect(mirrors.links(for: track.sections[0].url) == ["https://cdn.example.org/same-host/v/init.mp4", "https://a.example.com/dash/v/init.mp4",
                                                            "https://b.example.net/mirror/dash/v/init.mp4"])
        mirrors.answered(url, for: url)
        #expect(mirrors.links(for: url).first == url)
        // A link elsewhere has no other place; nor one on a host whose name only starts alike.
        #expect(mirrors.links(for: "https://a.example.com.evil.org/dash/v/1.m4s").count == 1)
    }

    @Test func baseURLsAtSeveralLevelsAndOneFileEach() throws {
        let manifest = try parse(mpd("""
            <BaseURL>https://p1.example/</BaseURL><BaseURL>https://p2.example/x/</BaseURL>
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <BaseURL>video.mp4</BaseURL><BaseURL>https://other.example/v-1080.mp4</BaseURL>
              <SegmentList duration="4"><Initialization range="0-99"/><SegmentURL mediaRange="100-199"/><SegmentURL mediaRange="200-299"/></SegmentList>
            </Representation></AdaptationSet>
            """, top: "<BaseURL>https://m1.example/</BaseURL><BaseURL>https://m2.example/</BaseURL>"))
        let representation = manifest.periods[0].adaptationSets[0].representations[0]
        #expect(representation.baseURL == "https://p1.example/video.mp4")
        #expect(representation.mirrors == ["https://other.example/v-1080.mp4", "https://p2.example/x/video.mp4"])
        let track = try track(manifest)
        #expect(track.mirrors == [StreamMirror(from: "https://p1.example/video.mp4", to: "https://other.example/v-1080.mp4"),
                                  StreamMirror(from: "https://p1.example/", to: "https://p2.example/x/")])
        #expect(PieceMirrors([track]).links(for: track.segments[0].url)
                    == ["https://p1.example/video.mp4", "https://other.example/v-1080.mp4", "https://p2.example/x/video.mp4"])
        // Any BaseURL that is no http(s) link is refused, the first or another.
        #expect(refusal(mpd(Self.video, top: "<BaseURL>https://ok.example/</BaseURL><BaseURL>file:///etc/</BaseURL>"))
                    == .unsafeLink("file:///etc/"))
    }

    @Test func manyBaseURLsKeepTheRecordSmall() throws {
        var text = "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" mediaPresentationDuration=\"PT198000S\">\n"
        for host in 1...6 { text += "<BaseURL>https://cdn\(host).example.org/very/long/path/to/the/segments/of/v/</BaseURL>\n" }
        text += "<Period><AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\">\n"
        text += "<SegmentTemplate timescale=\"1000\" media=\"$Time$.m4s\"><SegmentTimeline>\n"
        text += String(repeating: "<S d=\"2000\"/>\n", count: 99_000)
        text += "</SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>\n"
        let track = try track(try parse(text))
        #expect(track.segments.count == 99_000)
        // Four BaseURLs of a level are kept: the first and three other places.
        #expect(track.mirrors?.count == DASHParseState.baseURLLimit - 1)
        var alone = track
        alone.mirrors = nil
        let data = try JSONEncoder().encode(PresentationPart(mediaURL: Self.base, tracks: [track]))
        let without = try JSONEncoder().encode(PresentationPart(mediaURL: Self.base, tracks: [alone]))
        #expect(data.count - without.count < 1_000 && data.count < PresentationFolder.recordLimit / 4, "\(data.count) bytes")
        #expect(try JSONDecoder().decode(PresentationPart.self, from: data).tracks == [track])
    }

    // MARK: Paths

    @Test func segmentListsWithDotDotAndAbsolutePaths() throws {
        let manifest = try parse(mpd("""
            <AdaptationSet contentType="video"><Representation id="v" bandwidth="1"><BaseURL>media/v/</BaseURL>
              <SegmentList duration="2"><Initialization sourceURL="../init/v.mp4"/>
                <SegmentURL media="../../s/1.m4s"/><SegmentURL media="/root/2.m4s"/><SegmentURL media="./3.m4s?k=1"/>
                <SegmentURL media="//other.example.org/4.m4s"/>
              </SegmentList></Representation></AdaptationSet>
            """))
        let track = try track(manifest)
        #expect(track.sections.map(\.url) == ["https://cdn.example.org/show/media/init/v.mp4"])
        #expect(track.segments.map(\.url) == ["https://cdn.example.org/show/s/1.m4s", "https://cdn.example.org/root/2.m4s",
                                              "https://cdn.example.org/show/media/v/3.m4s?k=1", "https://other.example.org/4.m4s"])
    }

    // MARK: Subtitles

    @Test func textAdaptationSetsThatAreOneFileGoWithTheVideo() throws {
        let manifest = try parse(mpd(Self.video + """
            <AdaptationSet contentType="text" mimeType="text/vtt" lang="en"><Representation id="en" bandwidth="1"><BaseURL>subs/en.vtt</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="text" mimeType="application/ttml+xml" lang="fr-CA"><Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
              <Representation id="fr" bandwidth="1"><BaseURL>subs/fr.ttml</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="text" mimeType="application/mp4" lang="de"><Representation id="de" bandwidth="1" codecs="stpp">
              <SegmentTemplate media="de/$Number$.m4s" duration="2"/></Representation></AdaptationSet>
            <AdaptationSet mimeType="text/vtt" lang="es"><Representation id="es" bandwidth="1"><SegmentTemplate media="es/$Number$.vtt" duration="2"/></Representation></AdaptationSet>
            <AdaptationSet contentType="text" lang="../../x"><Representation id="odd" bandwidth="1"><BaseURL>subs/odd.vtt</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="text" mimeType="text/vtt" lang="en"><Representation id="en2" bandwidth="1"><BaseURL>subs/en2.vtt</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="text" mimeType="text/plain" lang="it"><Representation id="it" bandwidth="1"><BaseURL>subs/it.srt</BaseURL></Representation></AdaptationSet>
            """))
        let sub = "https://cdn.example.org/show/subs/"
        #expect(try DASHChoice.choose(manifest, languages: ["fr", "en"]).subtitles == [
            StreamSubtitle(url: sub + "fr.ttml", language: "fr-CA", format: "ttml"), StreamSubtitle(url: sub + "en.vtt", language: "en", format: "vtt"),
            StreamSubtitle(url: sub + "odd.vtt", language: nil, format: "vtt"),
        ])
        #expect(try DASHChoice.choose(manifest, languages: []).subtitles.map(\.language) == ["en", "fr-CA", nil])
        // A text Representation with no segments is read, one of video or audio is not.
        #expect(manifest.periods[0].adaptationSets[1].representations[0].segments == .file)
        #expect(StreamSubtitle.holds("vtt", Array("\u{FEFF}WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n".utf8)))
        #expect(!StreamSubtitle.holds("vtt", Array("WEBVTTX\n".utf8)) && !StreamSubtitle.holds("vtt", Array("<html>".utf8)))
        #expect(StreamSubtitle.holds("ttml", Array("<?xml version=\"1.0\"?>\n<!-- c --><tt:tt xmlns:tt=\"http://www.w3.org/ns/ttml\"/>".utf8)))
        #expect(!StreamSubtitle.holds("ttml", Array("<!DOCTYPE html><html><body>Sign in</body></html>".utf8)))
    }
}

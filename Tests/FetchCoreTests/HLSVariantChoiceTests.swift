@testable import FetchCore
import Testing

/// Which variant of a master is saved when the master is laid out as current packagers and
/// Apple's examples lay it out: the same video once per audio group, formats no MP4 takes,
/// I-frame playlists, session data and renditions of every type.
struct HLSVariantChoiceTests {
    static let base = "https://media.example.org/adv/master.m3u8"

    private func variants(_ text: String) throws -> [StreamVariant] {
        guard case .master(let variants) = try HLSPlaylistParser.parse(text, base: Self.base) else {
            Issue.record("not a master playlist")
            return []
        }
        return variants
    }

    /// Apple's advanced example shape (written for this test): 1080p and 720p, each in an AAC,
    /// an AC-3 and an E-AC-3 group, AC-3 the highest BANDWIDTH of each.
    static let advanced = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Sample"
        #EXT-X-SESSION-KEY:METHOD=NONE

        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=3168702,BANDWIDTH=3216424,CODECS="avc1.640020,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=60.000,CLOSED-CAPTIONS="cc1",AUDIO="aud1",SUBTITLES="sub1"
        v6/prog_index.m3u8
        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=7968416,BANDWIDTH=8001098,CODECS="avc1.64002a,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=60.000,CLOSED-CAPTIONS="cc1",AUDIO="aud1",SUBTITLES="sub1"
        v9/prog_index.m3u8
        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=3391205,BANDWIDTH=3438927,CODECS="avc1.640020,ac-3",RESOLUTION=1280x720,FRAME-RATE=60.000,CLOSED-CAPTIONS="cc1",AUDIO="aud2",SUBTITLES="sub1"
        v6/prog_index.m3u8
        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=8190919,BANDWIDTH=8223601,CODECS="avc1.64002a,ac-3",RESOLUTION=1920x1080,FRAME-RATE=60.000,CLOSED-CAPTIONS="cc1",AUDIO="aud2",SUBTITLES="sub1"
        v9/prog_index.m3u8
        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=9000000,BANDWIDTH=9100000,CODECS="avc1.64002a,ec-3",RESOLUTION=1920x1080,FRAME-RATE=60.000,CLOSED-CAPTIONS="cc1",AUDIO="aud3",SUBTITLES="sub1"
        v9/prog_index.m3u8

        #EXT-X-I-FRAME-STREAM-INF:AVERAGE-BANDWIDTH=183689,BANDWIDTH=187492,CODECS="avc1.64002a",RESOLUTION=1920x1080,URI="v9/iframe_index.m3u8"

        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="2",URI="a1/prog_index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud2",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="6",URI="a2/prog_index.m3u8"
        #EXT-X-MEDIA:TYPE="AUDIO",GROUP-ID="aud3",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="16/JOC",URI="a3/prog_index.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,INSTREAM-ID="CC1"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,FORCED=NO,URI="s1/en/prog_index.m3u8"
        """

    @Test func anAdvancedMasterReadsEveryVariantAndItsCodecs() throws {
        let all = try variants(Self.advanced)
        // The I-frame playlist is no variant to save.
        #expect(all.count == 5)
        #expect(all.allSatisfy { !$0.url.contains("iframe") })
        #expect(all[1].codecs == ["avc1.64002a", "mp4a.40.2"])
        #expect(all[1].audio.map(\.url) == ["https://media.example.org/adv/a1/prog_index.m3u8"])
        #expect(all[4].audio.first?.group == "aud3", "a quoted TYPE is still AUDIO")
        #expect(all.map(\.isSavable) == [true, true, true, true, false])
    }

    @Test func theBestIsTheAACOneOfTheTallestVideoAnMP4Takes() throws {
        let all = try variants(Self.advanced)
        // E-AC-3 has the highest BANDWIDTH but goes into no MP4 Fetchplay writes; AC-3 is the
        // same v9 video as the AAC one.
        let best = try #require(all.choose())
        #expect(best.url.hasSuffix("/v9/prog_index.m3u8") && best.codecs.contains("mp4a.40.2"))
        #expect(best.audioToFetch?.url?.hasSuffix("/a1/prog_index.m3u8") == true)
        let hd = try #require(all.choose(quality: "720p"))
        #expect(hd.url.hasSuffix("/v6/prog_index.m3u8") && hd.codecs.contains("mp4a.40.2"))
    }

    @Test func eachVideoIsOfferedOnceWithItsAAC() throws {
        let offered = try variants(Self.advanced).offered
        #expect(offered.map(\.height) == [720, 1080])
        #expect(offered.allSatisfy { $0.codecs.contains("mp4a.40.2") })
    }

    @Test(arguments: [
        (["hvc1.2.4.L123.B0", "mp4a.40.2"], true),
        (["avc1.64002a", "ac-3"], true),
        (["av01.0.08M.08", "opus"], true),
        (["avc1.64002a", "mp4a.40.2", "wvtt"], true),
        ([], true),
        (["avc1.64002a", "ec-3"], false),
        (["dvh1.05.06", "mp4a.40.2"], false),
        (["avc1.64002a", "fLaC"], false),
    ])
    func formatsAnMP4Takes(_ codecs: [String], _ savable: Bool) {
        #expect(StreamVariant(url: "https://x.example/v.m3u8", bandwidth: 1, codecs: codecs).isSavable == savable)
    }

    @Test func onlyUnsavableVariantsStillChooseOne() throws {
        let all = try variants("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS="dvh1.05.01,ec-3",RESOLUTION=1280x720
            a.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000,CODECS="dvh1.05.03,ec-3",RESOLUTION=1920x1080
            b.m3u8
            """)
        #expect(all.choose()?.height == 1080)
        #expect(all.offered.count == 2)
    }

    @Test func aMapPartWayAppliesToTheSegmentsAfterIt() throws {
        guard case .media(let playlist) = try HLSPlaylistParser.parse("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-MAP:URI="a/init.mp4"
            #EXTINF:2,
            a/0.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="700@0"
            #EXTINF:2,
            #EXT-X-BYTERANGE:1000@700
            main.mp4
            #EXTINF:2,
            #EXT-X-BYTERANGE:900
            main.mp4
            #EXT-X-ENDLIST
            """, base: Self.base) else { Issue.record("not a media playlist"); return }
        #expect(playlist.segments.map { playlist.section(of: $0)?.url.split(separator: "/").last } == ["init.mp4", "main.mp4", "main.mp4"])
        #expect(playlist.section(of: playlist.segments[1])?.range == ByteSpan(offset: 0, length: 700))
        #expect(playlist.segments[2].range == ByteSpan(offset: 1700, length: 900))
        // The feed gives each init section once, before the first segment that needs it.
        let kinds = SegmentFeed.pieces(of: playlist).map(\.kind)
        #expect(kinds == [.initSection, .fragment, .initSection, .fragment, .fragment])
    }
}

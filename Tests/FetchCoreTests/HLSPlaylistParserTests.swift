@testable import FetchCore
import Testing

/// The playlist parser, table by table: what it reads, what it resolves, what it refuses.
struct HLSPlaylistParserTests {
    static let base = "https://cdn.example.org/show/v1/index.m3u8?token=abc"

    private func media(_ text: String) throws -> StreamTrack {
        guard case .media(let playlist) = try HLSPlaylistParser.parse(text, base: Self.base) else {
            Issue.record("not a media playlist")
            throw HLSRefusal.invalid("test")
        }
        return playlist
    }

    @Test func masterPlaylistListsVariantsAndPicksByBandwidthOrHeight() throws {
        let text = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080
            https://other.example.org/hd.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720
            /abs/720.m3u8
            """
        guard case .master(let variants) = try HLSPlaylistParser.parse(text, base: Self.base) else {
            Issue.record("not a master playlist"); return
        }
        #expect(variants.map(\.url) == ["https://cdn.example.org/show/v1/low/index.m3u8",
                                        "https://other.example.org/hd.m3u8",
                                        "https://cdn.example.org/abs/720.m3u8"])
        #expect(variants.map(\.height) == [360, 1080, 720])
        #expect(variants.choose()?.height == 1080)
        #expect(variants.choose(quality: "720p")?.height == 720)
        #expect(variants.choose(quality: "900")?.height == 720)
        #expect(variants.choose(quality: "240p")?.height == 360)
        #expect(variants[2].label == "720p")
    }

    @Test func audioRenditionsJoinTheVariantsOfTheirGroup() throws {
        let text = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="stereo"
            low/video.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,AUDIO="muxed"
            low/muxed.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,AUDIO="nowhere"
            low/alone.m3u8
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,URI="audio/de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English, original",DEFAULT=YES,URI="/audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="Main",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="Commentary",URI="audio/commentary.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="stereo",NAME="English",URI="subs/en.m3u8"
            """
        guard case .master(let variants) = try HLSPlaylistParser.parse(text, base: Self.base) else {
            Issue.record("not a master playlist"); return
        }
        // EXT-X-MEDIA after the variants still counts; subtitles are not audio.
        #expect(variants[0].audio.map(\.name) == ["Deutsch", "English, original"])
        #expect(variants[0].audio.map(\.language) == ["de", nil])
        #expect(variants[0].audio.map(\.url) == ["https://cdn.example.org/show/v1/audio/de.m3u8",
                                                "https://cdn.example.org/audio/en.m3u8"])
        // The DEFAULT one, though listed second.
        #expect(variants[0].audioToFetch?.url == "https://cdn.example.org/audio/en.m3u8")
        // The DEFAULT one has no URI: its audio is in the variant's own segments.
        #expect(variants[1].audio.count == 2)
        #expect(variants[1].audioToFetch == nil)
        // A group no EXT-X-MEDIA names: the variant keeps its own audio.
        #expect(variants[2].audio.isEmpty && variants[2].audioToFetch == nil)

        let noDefault = "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"One\",URI=\"one.m3u8\"\n"
            + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Two\",AUTOSELECT=YES,URI=\"two.m3u8\"\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO=\"a\"\nv.m3u8\n"
        guard case .master(let other) = try HLSPlaylistParser.parse(noDefault, base: Self.base) else { return }
        #expect(other[0].audioToFetch?.name == "Two")
    }

    struct Resolution: Sendable, CustomTestStringConvertible {
        let reference: String
        let expected: String?
        var testDescription: String { reference }
    }

    /// RFC 3986 §5.4's examples, against a playlist's address.
    @Test(arguments: [
        Resolution(reference: "seg1.ts", expected: "https://cdn.example.org/show/v1/seg1.ts"),
        Resolution(reference: "./seg1.ts", expected: "https://cdn.example.org/show/v1/seg1.ts"),
        Resolution(reference: "../v2/seg1.ts", expected: "https://cdn.example.org/show/v2/seg1.ts"),
        Resolution(reference: "/root.ts", expected: "https://cdn.example.org/root.ts"),
        Resolution(reference: "//mirror.example.net/a.ts", expected: "https://mirror.example.net/a.ts"),
        Resolution(reference: "seg.ts?part=2", expected: "https://cdn.example.org/show/v1/seg.ts?part=2"),
        Resolution(reference: "http://plain.example.org/x.ts", expected: "http://plain.example.org/x.ts"),
        Resolution(reference: "ftp://files.example.org/x.ts", expected: nil),
    ])
    func linksResolveAgainstThePlaylist(_ row: Resolution) {
        #expect(RelativeLink.resolve(row.reference, against: Self.base) == row.expected)
    }

    @Test func mediaPlaylistReadsSegmentsKeysAndSequence() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:7
            #EXTINF:4.0,first
            s7.ts
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin"
            #EXTINF:3.5,
            s8.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k2.bin",IV=0x00000000000000000000000000ABCDEF
            #EXTINF:2,
            s9.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:1.25,
            s10.ts
            #EXT-X-ENDLIST
            """)
        #expect(playlist.duration == 10.75)
        #expect(playlist.segments[0].key == nil)
        // No IV: the segment's sequence number (7 + 1).
        #expect(playlist.segments[1].key == SegmentKey(url: "https://cdn.example.org/show/keys/k1.bin",
                                                   iv: Array(repeating: 0, count: 15) + [8]))
        #expect(playlist.segments[2].key?.iv == Array(repeating: 0, count: 13) + [0xAB, 0xCD, 0xEF])
        #expect(playlist.segments[3].key == nil)
    }

    @Test func byteRangesContinueAndMapsComeFirst() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-BYTERANGE:1000@720
            #EXTINF:2,
            all.mp4
            #EXT-X-BYTERANGE:500
            #EXTINF:2,
            all.mp4
            #EXT-X-ENDLIST
            """)
        #expect(playlist.segments.map(\.range) == [ByteSpan(offset: 720, length: 1000), ByteSpan(offset: 1720, length: 500)])
        #expect(playlist.sections == [InitSection(url: "https://cdn.example.org/show/v1/init.mp4", range: ByteSpan(offset: 0, length: 720))])
        #expect(playlist.segments.allSatisfy { $0.section == 0 })
        // Each range is a piece of its own, the init section's before the first segment.
        #expect(SegmentPool.pieces(of: [playlist]) == [
            StreamPiece(url: "https://cdn.example.org/show/v1/init.mp4", range: ByteSpan(offset: 0, length: 720)),
            StreamPiece(url: "https://cdn.example.org/show/v1/all.mp4", range: ByteSpan(offset: 720, length: 1000)),
            StreamPiece(url: "https://cdn.example.org/show/v1/all.mp4", range: ByteSpan(offset: 1720, length: 500)),
        ])
    }

    @Test func sequenceIVIsTheNumberBigEndian() {
        #expect(HLSPlaylistParser.sequenceIV(0x0102) == Array(repeating: 0, count: 14) + [1, 2])
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let expected: HLSRefusal
        var testDescription: String { name }
    }

    static let segment = "#EXTINF:2,\ns.ts\n"

    @Test(arguments: [
        Refusal(name: "live (no EXT-X-ENDLIST)", text: "#EXTM3U\n" + segment, expected: .live),
        Refusal(name: "SAMPLE-AES", text: "#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n" + segment + "#EXT-X-ENDLIST",
                expected: .protected("SAMPLE-AES")),
        Refusal(name: "FairPlay key format",
                text: "#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://x\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n"
                    + segment + "#EXT-X-ENDLIST",
                expected: .protected("com.apple.streamingkeydelivery")),
        Refusal(name: "not a playlist", text: "<html><body>hello</body></html>",
                expected: .invalid("it does not start with #EXTM3U")),
        Refusal(name: "a segment without EXTINF", text: "#EXTM3U\ns.ts\n#EXT-X-ENDLIST",
                expected: .invalid("the segment “s.ts” has no EXTINF")),
        Refusal(name: "a duration that is no number", text: "#EXTM3U\n#EXTINF:abc,\ns.ts\n#EXT-X-ENDLIST",
                expected: .invalid("the segment duration “abc” is not a number")),
        Refusal(name: "no segments", text: "#EXTM3U\n#EXT-X-ENDLIST", expected: .invalid("it lists no segments")),
        Refusal(name: "a short IV", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xZZ\n" + segment + "#EXT-X-ENDLIST",
                expected: .invalid("the IV “0xZZ” is not 128 bits in hex")),
        Refusal(name: "a variant without BANDWIDTH", text: "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8",
                expected: .invalid("a variant has no BANDWIDTH")),
    ])
    func refusals(_ row: Refusal) {
        #expect(throws: row.expected) { try HLSPlaylistParser.parse(row.text, base: Self.base) }
    }

    @Test func attributeListsKeepCommasInsideQuotes() {
        let attributes = HLSPlaylistParser.attributes(#"BANDWIDTH=1,CODECS="avc1.4d401e,mp4a.40.2",NAME="a b""#)
        #expect(attributes == ["BANDWIDTH": "1", "CODECS": "avc1.4d401e,mp4a.40.2", "NAME": "a b"])
    }
}

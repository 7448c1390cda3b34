import Foundation
import Glibc
import Testing
import TestSupport

/// `fetchplay --download` on DASH as ffmpeg's muxer writes it (SegmentTimeline, $Number$, one
/// file by mediaRange) and on-demand files read through their sidx, served with Range by the
/// test server: one MP4 with both tracks, the right duration and a clean decode; live, DRM,
/// hostile and broken manifests refused with one sentence, nothing saved; a segment that fails
/// ends the run with one sentence, and the next run continues without fetching again what was
/// finished. Forms real servers write: several BaseURLs (the next when a host fails), an
/// EssentialProperty Fetchplay does not know, a WebVTT file beside the video, durations and
/// numbers written in their longer forms.
struct DASHCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    var folder: TemporaryDirectory { fixture.folder }
    let clip: DASHClip
    var cacheDir: String { fixture.cacheDir }

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-cli-dash")
        clip = try Clips.dash()
        clip.serve(on: server)
    }

    private func download(_ path: String, _ extra: [String] = [], name: String = "run") throws -> FetchplayProcess {
        try fixture.download(server.url(path), name: name, extra)
    }

    /// The saved MP4: the clip's length, one video stream of `height` lines (none when
    /// `height` is nil) and one audio stream, and a clean decode.
    @discardableResult
    private func expectVideo(_ run: FetchplayProcess, height: Int? = 360) throws -> String {
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        #expect(path.hasPrefix(cacheDir + "/videos/") && path.hasSuffix(height == nil ? ".m4a" : ".mp4"), "\(path)")
        let media = try DiscoveredMedia.probe(path)
        #expect(abs(media.duration - clip.seconds) < 0.1, "duration \(media.duration)")
        #expect(media.videoStreams == (height == nil ? 0 : 1) && media.audioStreams == 1, "\(media)")
        if let height { #expect(media.height == height) }
        let packets = try FFprobe.packets(path)
        if height != nil { #expect(packets.first { $0.kind == "video" }?.count == Int(clip.seconds) * 30, "\(packets)") }
        #expect(try FFprobe.decodeErrors(path) == "")
        #expect(!FileManager.default.fileExists(atPath: cacheDir + "/hls") || fixture.presentationFolders().isEmpty,
                "the presentation's folder is gone once the video is whole")
        return path
    }

    /// Nothing kept: no video, no presentation.
    private func expectNothingSaved() {
        let videos = (try? FileManager.default.contentsOfDirectory(atPath: cacheDir + "/videos")) ?? []
        #expect(videos.filter { !$0.hasPrefix(".") }.isEmpty, "\(videos)")
        #expect(fixture.presentationFolders().isEmpty)
    }

    @Test func aSegmentTimeline() throws {
        try expectVideo(try download("/tl/index.mpd"))
    }

    @Test func aFixedDurationTemplate() throws {
        try expectVideo(try download("/num/index.mpd"))
    }

    @Test func aSegmentListOfByteRangesIsFetchedRangeByRange() throws {
        #expect(clip.text("single/index.mpd").contains("mediaRange"))
        try expectVideo(try download("/single/index.mpd"))
        // Every range lies in one file per stream: each asked for once, by its range.
        let ranges = server.requests(to: "/single/index-stream0.mp4").map { $0["range"] }
        #expect(ranges.count > 2 && eachRangeOnce(ranges), "\(ranges)")
    }

    @Test func segmentBaseThroughItsSidxWithNestedBaseURLs() throws {
        try expectVideo(try download("/base/index.mpd"))
        // The sidx by a range of its own, then the init section and each segment by theirs.
        let ranges = server.requests(to: "/base/media/video.mp4").map { $0["range"] }
        #expect(ranges.count > 2 && eachRangeOnce(ranges), "\(ranges)")
    }

    @Test func aSidxFromAServerThatIgnoresRange() throws {
        // The whole file instead of the index range: the index is cut out of it; and the whole
        // file again for the first segment's range: it is kept whole, once, and cut.
        let path = "base/media/audio.mp4"
        server.serve("/" + path, body: try #require(clip.files[path]), etag: "\"audio\"", faults: [.ignoreRange], faultyRequests: 2)
        try expectVideo(try download("/base/index.mpd"))
        let ranges = server.requests(to: "/" + path).map { $0["range"] }
        #expect(ranges.count == 2 && !ranges.contains(nil), "the index and the first range were asked for by range: \(ranges)")
    }

    @Test func audioOnlyIsSavedAsAudio() throws {
        let path = try expectVideo(try download("/audio/index.mpd"), height: nil)
        #expect(path.hasSuffix(".m4a"), "\(path)")
    }

    @Test func theBestVideoOrTheTallestUpToQuality() throws {
        try expectVideo(try download("/multi/index.mpd"))
        let folder2 = folder.file("cache2")
        let small = try FetchplayProcess.run(["--download", server.url("/multi/index.mpd"), "--cache-dir", folder2, "--quality", "240p"],
                                             folder: folder, name: "small")
        #expect(small.status == 0, "\(small.standardError)")
        let media = try DiscoveredMedia.probe(try #require(small.lastLine))
        #expect(media.height == 180 && media.audioStreams == 1, "\(media)")
    }

    @Test func twoPeriodsAreJoinedInOrderOnOneTimeline() throws {
        let run = try download("/periods/index.mpd")
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let path = try #require(run.lastLine)
        let media = try DiscoveredMedia.probe(path)
        #expect(abs(media.duration - 2 * clip.seconds) < 0.1, "duration \(media.duration)")
        #expect(media.videoStreams == 1 && media.audioStreams == 1, "\(media)")
        let packets = try FFprobe.packets(path)
        #expect(packets.first { $0.kind == "video" }?.count == 2 * Int(clip.seconds) * 30, "\(packets)")
        // The video decodes cleanly; the first Period's audio runs a fraction of a frame past its
        // end (AAC frames do not fall on its end), which a decoder reports as one overlap.
        let errors = try FFprobe.decodeErrors(path).split(separator: "\n").filter { !$0.contains("non monotonically increasing dts") }
        #expect(errors.isEmpty, "\(errors)")
        // Each segment once, though both Periods name it.
        #expect(server.requests(to: "/tl/chunk-stream0-00001.m4s").count == 1)
    }

    @Test func aManifestKnownOnlyByItsAnswerAfterARedirect() throws {
        // No .mpd in the link: the engine's first bytes tell; links resolve from where the
        // redirect ended.
        server.serve("/watch", body: [], faults: [.redirect(status: 302, location: "/tl/index.mpd")])
        try expectVideo(try download("/watch"))
    }

    @Test func liveIsRefused() throws {
        server.serve("/live.mpd", body: Array(clip.text("tl/index.mpd").replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\"").utf8))
        let run = try download("/live.mpd")
        #expect(run.status == 7)
        #expect(run.standardError.contains("live DASH stream"), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1)
        expectNothingSaved()
    }

    @Test func drmIsRefused() throws {
        let text = clip.text("tl/index.mpd").replacingOccurrences(of: "<Representation id=\"0\"", with: """
            <ContentProtection schemeIdUri="urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95"/><Representation id="0"
            """)
        server.serve("/tl/drm.mpd", body: Array(text.utf8))
        let run = try download("/tl/drm.mpd")
        #expect(run.status == 7)
        #expect(run.standardError.contains("protected by DRM (PlayReady)"), "\(run.standardError)")
        #expect(server.requests.allSatisfy { !$0.path.hasSuffix(".m4s") })
        expectNothingSaved()
    }

    @Test(arguments: [
        ("notxml", "#EXTM3X\nnot <xml", "is not XML"),
        ("feed", "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>news</title></feed>",
         "an XML document (feed), not a DASH manifest"),
        ("login", "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form>Sign in to watch</form></body></html>\n",
         "No video found on this page"),
        ("bomb", "<?xml version=\"1.0\"?><!DOCTYPE MPD [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><MPD>&b;</MPD>",
         "declares a DTD or entities"),
        ("file", "<MPD type=\"static\" mediaPresentationDuration=\"PT4S\"><BaseURL>file:///etc/</BaseURL><Period><AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate media=\"passwd\" duration=\"4\"/></Representation></AdaptationSet></Period></MPD>",
         "file:///etc/"),
        ("empty", "<MPD type=\"static\" mediaPresentationDuration=\"PT4S\"><Period><AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\"/></AdaptationSet></Period></MPD>",
         "lists no segments"),
        ("duration", "<MPD type=\"static\" mediaPresentationDuration=\"PT1X\"><Period/></MPD>",
         "the duration “PT1X” of MPD@mediaPresentationDuration is not an xs:duration"),
        ("huge", "<MPD type=\"static\" mediaPresentationDuration=\"PT4S\"><Period><AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate media=\"$Time$\"><SegmentTimeline><S d=\"1\" r=\"2000000000\"/></SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>",
         "too large"),
    ])
    func aBadManifestIsRefusedInOneSentence(_ name: String, _ text: String, _ words: String) throws {
        server.serve("/bad/\(name).mpd", body: Array(text.utf8))
        let run = try download("/bad/\(name).mpd")
        #expect(run.status == 7, "\(run.standardError)")
        #expect(run.standardError.contains(words), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(server.requests.allSatisfy { $0.path.hasPrefix("/bad/") })
        expectNothingSaved()
    }

    // MARK: As real servers write them

    /// A manifest made from `source`'s text with each of `changes` made (each must be there),
    /// served at `path`.
    private func serveChanged(_ source: String, at path: String, _ changes: [(String, String)]) {
        var text = clip.text(source)
        for (old, new) in changes {
            #expect(text.contains(old), "\(source) has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        server.serve(path, body: Array(text.utf8), headers: [HTTPHeader("Content-Type", "application/dash+xml")])
    }

    @Test(arguments: ["503", "refused", "sidx"])
    func theNextBaseURLWhenAHostFails(_ kind: String) throws {
        let broken = try FaultServer()
        let folder = kind == "sidx" ? "base" : "tl"
        let first: String
        if kind == "503" {
            for (path, body) in clip.files where path.hasPrefix("tl/") { broken.serve("/" + path, body: body, faults: [.status(503)]) }
            first = broken.url("/tl/")
        } else {
            first = "http://127.0.0.1:\(try Loopback.freePort())/\(folder)/"
        }
        if kind == "sidx" {
            // SegmentBase: its sidx, init section and ranges from the second place too.
            serveChanged("base/index.mpd", at: "/mirrored/index.mpd",
                         [("<BaseURL>./</BaseURL>", "<BaseURL>\(first)</BaseURL><BaseURL>\(server.url("/base/"))</BaseURL>")])
        } else {
            serveChanged("tl/index.mpd", at: "/mirrored/index.mpd",
                         [("<Period", "<BaseURL>\(first)</BaseURL>\n<BaseURL>\(server.url("/tl/"))</BaseURL>\n<Period")])
        }
        let run = try download("/mirrored/index.mpd")
        try expectVideo(run)
        #expect(run.standardError.contains("Trying \(server.url("/\(folder)/"))"), "\(run.standardError)")
        guard kind != "sidx" else { return }
        // Every piece from the second host, once; the first asked only until one answered
        // there (at most once per connection of the pool).
        let paths = server.requests.map(\.path).filter { $0.hasPrefix("/tl/") }
        #expect(paths.count >= 10 && Set(paths).count == paths.count, "\(paths)")
        if kind == "503" { #expect((1...4).contains(broken.requests.count), "\(broken.requests.map(\.path))") }
    }

    @Test func anEssentialPropertyOnTheBestRepresentationSavesTheNextBest() throws {
        serveChanged("multi/index.mpd", at: "/multi/essential.mpd", [
            ("par=\"16:9\">", "par=\"16:9\">\n<SupplementalProperty schemeIdUri=\"urn:example:unknown\" value=\"1\"/>"),
            ("height=\"360\" sar=\"1:1\">", "height=\"360\" sar=\"1:1\">\n<EssentialProperty schemeIdUri=\"urn:example:a-decoder-fetchplay-lacks\"/>"),
        ])
        try expectVideo(try download("/multi/essential.mpd"), height: 180)
        #expect(server.requests.allSatisfy { !$0.path.contains("stream0") }, "\(server.requests.map(\.path))")
    }

    @Test(arguments: ["saved", "missing"])
    func aWebVTTAdaptationSetIsSavedBesideTheVideo(_ kind: String) throws {
        let vtt = "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n"
        if kind == "saved" { server.serve("/tl/subs/en.vtt", body: Array(vtt.utf8), headers: [HTTPHeader("Content-Type", "text/vtt")]) }
        serveChanged("tl/index.mpd", at: "/tl/subtitled.mpd", [("</Period>", """
            <AdaptationSet contentType="text" mimeType="text/vtt" lang="en">
              <Representation id="en" bandwidth="256"><BaseURL>subs/en.vtt</BaseURL></Representation>
            </AdaptationSet>
            <AdaptationSet contentType="text" mimeType="application/mp4" lang="de">
              <Representation id="de" bandwidth="256" codecs="stpp"><SegmentTemplate media="subs/de-$Number$.m4s" duration="1"/></Representation>
            </AdaptationSet>
            </Period>
            """)])
        let run = try download("/tl/subtitled.mpd")
        let path = try expectVideo(run)
        let beside = (path as NSString).deletingPathExtension + ".en.vtt"
        if kind == "saved" {
            #expect(FileManager.default.contents(atPath: beside) == Data(vtt.utf8))
            // Beside the video's record (the videos folder is in the cache here).
            let names = try FileManager.default.contentsOfDirectory(atPath: cacheDir + "/videos").filter { !$0.hasSuffix(".json") }
            #expect(Set(names) == ["subtitled.mp4", "subtitled.en.vtt"], "\(names)")
        } else {
            #expect(!FileManager.default.fileExists(atPath: beside))
            #expect(run.standardError.contains("warning: The subtitles “en.vtt” were not saved"), "\(run.standardError)")
        }
        // A segmented one is left out.
        #expect(server.requests.allSatisfy { !$0.path.contains("/subs/de-") })
    }

    @Test func durationsAndNumbersInTheirLongerForms() throws {
        serveChanged("num/index.mpd", at: "/num/expanded.mpd", [
            ("mediaPresentationDuration=\"PT4.0S\"",
             "mediaPresentationDuration=\"P0Y0M0DT0H0M4.000S\" availabilityStartTime=\"2024-01-01T00:00:00Z\""),
            ("maxSegmentDuration=\"PT1.0S\"", "maxSegmentDuration=\"PT1S\""),
            ("start=\"PT0.0S\"", "start=\"P0DT0H0M0.000S\""),
            ("timescale=\"1000000\" duration=\"1000000\"", "timescale=\"1.0E6\" duration=\"1000000.0\""),
        ])
        try expectVideo(try download("/num/expanded.mpd"))
    }

    @Test(arguments: ["404", "html"])
    func aFailingSegmentEndsTheRunAndTheNextOneContinues(_ kind: String) throws {
        let missing = "/tl/chunk-stream0-00003.m4s"
        let body = try #require(clip.files[String(missing.dropFirst())])
        if kind == "404" {
            server.serve(missing, body: Array("gone".utf8), faults: [.status(404)])
        } else {
            server.serve(missing, body: Array("<!DOCTYPE html><html><body>Sign in to watch</body></html>\n".utf8),
                         headers: [HTTPHeader("Content-Type", "text/html")])
        }
        let first = try download("/tl/index.mpd", name: "first")
        #expect(first.status != 0 && first.lastLine == nil)
        #expect(first.standardError.contains(kind == "404" ? "404" : "web page"), "\(first.standardError)")
        // One sentence (besides the warnings of the segment's retries).
        #expect(first.standardError.split(separator: "\n").filter { $0.hasPrefix("fetchplay:") && !$0.hasPrefix("fetchplay: warning:") }
                    .count == 1, "\(first.standardError)")
        let kept = fixture.finishedSegments()
        #expect(kept.count >= 2, "the finished segments are kept: \(kept)")

        server.serve(missing, body: body, etag: "\"fixed\"")
        let before = server.requests.count
        let second = try download("/tl/index.mpd", name: "second")
        try expectVideo(second)
        let again = server.requests.dropFirst(before).map(\.path)
        // Only what was not finished: the missing one and those the first run never reached.
        #expect(again.contains(missing))
        #expect(again.count <= 10 - kept.count, "\(again)")
        #expect(!again.contains("/tl/index.mpd"), "the manifest is kept with the presentation: \(again)")
    }
}

import Foundation
import Testing
@testable import FetchCore
import TestSupport

/// A download of a page the scanner finds nothing on, with a yt-dlp that misbehaves (fake ones,
/// sh scripts): each ends in one sentence, nothing is kept and nothing of what it named is
/// requested.
@Suite(.serialized) struct SiteRunTests {
    let harness: DownloadHarness
    let server: FaultServer

    init() throws {
        harness = try DownloadHarness()
        server = try FaultServer()
        server.serve("/watch", body: Array("<html><head><title>A site</title></head><body><div id=p></div></body></html>".utf8),
                     headers: [HTTPHeader("Content-Type", "text/html")])
    }

    /// Options whose yt-dlp is a script running `script`.
    func options(_ script: String, timeLimit: Double = 60) throws -> DownloadOptions {
        let path = try harness.folder.write(Array("#!/bin/sh\n\(script)\n".utf8), to: "yt-dlp")
        chmod(path, 0o755)
        var options = DownloadHarness.quickOptions
        options.sites.program = path
        options.sites.timeLimit = timeLimit
        return options
    }

    func sentence(_ script: String, timeLimit: Double = 60) throws -> String? {
        let state = try harness.download(server.url("/watch"), options: options(script, timeLimit: timeLimit))
        #expect(harness.cache.entries().isEmpty, "nothing kept")
        guard case .failed(.siteFailed(let sentence)) = state else {
            Issue.record("not a sentence of site support: \(state)")
            return nil
        }
        return sentence
    }

    @Test func aTracebackIsItsLastErrorLine() throws {
        let said = try sentence("""
            echo 'Traceback (most recent call last):' >&2
            echo '  File "yt_dlp/__init__.py", line 1' >&2
            echo 'ERROR: [generic] Unsupported URL: http://127.0.0.1/watch' >&2
            exit 1
            """)
        #expect(said == "yt-dlp could not read this page: [generic] Unsupported URL: http://127.0.0.1/watch")
    }

    @Test func brokenJSONIsOneSentence() throws {
        #expect(try sentence("echo '{\"formats\": [' ") == SiteExtractionError.unreadable.message)
    }

    @Test func tooMuchOutputIsOneSentence() throws {
        #expect(try sentence("head -c 20000000 /dev/zero | tr '\\0' ' '; echo '{}'") == SiteExtractionError.tooLarge(megabytes: 16).message)
    }

    @Test func oneThatHangsIsStopped() throws {
        #expect(try sentence("sleep 30", timeLimit: 1) == SiteExtractionError.timedOut(seconds: 1).message)
    }

    @Test func onlyLocalLinksIsNoVideoAndNothingIsRequested() throws {
        let said = try sentence("""
            echo '{"title": "t", "formats": [{"format_id": "f", "url": "file:///etc/passwd", "protocol": "https"},
              {"format_id": "d", "url": "data:video/mp4;base64,AAAA"},
              {"format_id": "s", "protocol": "http_dash_segments", "fragment_base_url": "file:///etc/", "fragments": [{"path": "shadow"}]}]}'
            """)
        #expect(said == SiteExtractionError.noVideo.message)
        #expect(server.requests.allSatisfy { $0.path == "/watch" })
    }

    @Test func aMissingProgramIsOneSentence() throws {
        var options = DownloadHarness.quickOptions
        options.sites.program = harness.folder.file("no-such-yt-dlp")
        let state = try harness.download(server.url("/watch"), options: options)
        guard case .failed(.siteFailed(let said)) = state else {
            Issue.record("\(state)")
            return
        }
        #expect(said.hasPrefix("yt-dlp could not be started"), "\(said)")
    }

    /// 100,000 entries: the first 1,000 are offered, and the rest are said to be left out.
    @Test func aHugePlaylistOffersItsFirstThousand() throws {
        let options = try options("""
            python3 -c 'import json; print(json.dumps({"_type": "playlist", "title": "All", "entries": [{"url": "https://example.com/v/%d" % i, "title": "V%d" % i} for i in range(100000)]}))'
            """)
        let finding = try #require(try PageReader.find(at: server.url("/watch"), options: options))
        #expect(finding.videos.count == 1_000 && finding.entriesLeftOut == 99_000)
        #expect(finding.videos.first == PageVideo(url: "https://example.com/v/0", kind: .site, title: "V0"))
        #expect(try harness.download(server.url("/watch"), options: options) == .failed(.severalVideos(1_000)))
    }

    /// A format only yt-dlp can fetch (`impersonate`) goes to its own downloader: its progress
    /// lines are the download's, a pause kills it with its `.part` kept and listed as a partial,
    /// Continue after a quit runs it again on that `.part`, and the finished file is placed in
    /// the videos folder like any video.
    @Test func aFormatOnlyYtDlpCanFetchUsesItsDownloaderWithPauseAndContinue() throws {
        let body = TestData.bytes(count: 2 << 20, seed: 61)
        let source = try harness.folder.write(body, to: "served.bin")
        let starts = harness.folder.file("starts")
        let options = try options(FakeYtDlp.script(title: "Only yt-dlp", source: source, total: body.count, starts: starts))
        let task = try harness.task(server.url("/watch"), options: options)
        task.start()
        #expect(waitUntil(timeout: .seconds(20)) { task.progress.bytesDone >= 300_000 })
        task.pause()
        #expect(task.wait() == .paused)
        let kept = try FileManager.default.contentsOfDirectory(atPath: harness.cache.sitesDirectory + "/" + Cache.key(for: task.url))
        #expect(kept.contains("video.mp4.part"), "\(kept)")
        // After a quit: listed as a partial named after the page, with its bytes; the start's
        // tidying keeps its context, and none of its files is a stray.
        let listed = try #require(Library(cache: harness.cache).reload().first { $0.url == task.url }, "not listed")
        #expect(!listed.isComplete && listed.displayName == "Only yt-dlp.mp4" && listed.bytesDone >= 300_000, "\(listed)")
        #expect(listed.total == Int64(body.count), "its total from yt-dlp's progress lines")
        harness.cache.tidyLeftovers()
        #expect(FileIO.size(of: harness.cache.contextPath(for: task.url)) != nil, "its context was tidied away")
        #expect(harness.cache.strayFiles(known: [listed]).isEmpty, "\(harness.cache.strayFiles(known: [listed]))")
        // Deleted with its folder and context, and back exactly with an undo.
        let library = Library(cache: harness.cache)
        let deletion = try library.delete(url: task.url)
        #expect(library.reload().allSatisfy { $0.url != task.url }, "still listed after its deletion")
        try library.undo(deletion)
        #expect(harness.cache.entry(for: task.url) == listed)
        // Continue, by a task of the next run.
        let again = try harness.task(task.url, options: options)
        again.start()
        let end = again.wait()
        guard case .completed(let path) = end else {
            Issue.record("\(end)")
            return
        }
        #expect(try sha256Hex(ofFile: path) == sha256Hex(of: body))
        #expect(path.hasSuffix("/Only yt-dlp.mp4"), "\(path)")
        let runs = try String(contentsOfFile: starts, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(runs.count == 2 && runs[0] == 0 && runs[1] > 0, "continued on its .part: \(runs)")
        #expect(harness.progressEvents.contains { $0.total == Int64(body.count) && $0.bytesDone > 0 })
        #expect(!FileManager.default.fileExists(atPath: harness.cache.sitesDirectory + "/" + Cache.key(for: task.url)))
    }

    /// A format's own headers go to its host alone: after a run that kept the partial, yt-dlp
    /// asked again gets the page's context, never the format's headers (it would send them to
    /// every host it asks).
    @Test func aFormatsHeadersNeverReachYtDlpWhenItIsAskedAgain() throws {
        let body = TestData.bytes(count: 400_000, seed: 62)
        // Cut, then a retry that brings nothing: the run fails with its first bytes kept.
        server.serve("/media/v", body: body, etag: "\"v\"", faults: [.dropAfter(bytes: 100_000)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/media/v", requests: 1)
        let seen = harness.folder.file("configs")
        let options = try options("""
            cat "$3" >> \(seen)
            echo '{"title": "Signed", "formats": [{"format_id": "f", "url": "\(server.url("/media/v"))", "protocol": "http",
              "http_headers": {"X-Format-Secret": "f0rmat", "User-Agent": "FormatUA/1"}}]}'
            """)
        var context = RequestContext()
        context.headers = [try HeaderField(name: "X-Person", value: "p")]
        let first = try harness.run(server.url("/watch"), context: context, options: options)
        guard case .failed = first else {
            Issue.record("the first run should leave a partial: \(first)")
            return
        }
        #expect(try harness.run(server.url("/watch"), context: nil, options: options).completedPath != nil)
        let configs = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(!configs.contains("X-Format-Secret") && !configs.contains("FormatUA"), "\(configs)")
        #expect(configs.components(separatedBy: "X-Person").count == 3, "the person's header both times: \(configs)")
        let asked = server.requests(to: "/media/v")
        #expect(asked.allSatisfy { $0["x-format-secret"] == "f0rmat" && $0["user-agent"] == "FormatUA/1" })
        #expect(asked.last?["range"] != nil, "continued from the bytes on disk")
    }
}

import Foundation
import Testing
import TestSupport

/// A link's user name and password (`http://user:password@host/master.m3u8`) go with every
/// request of a presentation on the link's host, to no other host, and are never written down:
/// a presentation left half-done keeps where it read its playlists without them.
struct LinkPasswordCommandTests {
    let fixture: CommandFixture
    var server: FaultServer { fixture.server }
    static let password = "pa55-W0RD"
    /// `fp:pa55-W0RD` as HTTP Basic authentication sends it.
    static let basic = "Basic " + Data("fp:\(password)".utf8).base64EncodedString()

    init() throws {
        fixture = try CommandFixture(prefix: "fetchplay-password")
    }

    private func link(_ path: String) -> String {
        "http://fp:\(Self.password)@127.0.0.1:\(server.port)\(path)"
    }

    /// Every file under `folder` (the cache, the videos folder) whose bytes hold the password.
    private func filesHoldingThePassword(under folder: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { return false }
            return data.range(of: Data(Self.password.utf8)) != nil
        }
    }

    @Test func everyRequestOnTheLinksHostCarriesItAndNoFileKeepsIt() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        // The last segment of each variant is missing: the run stops half-done, kept to resume.
        let lasts = ["v360", "v720"].compactMap { clip.segments(of: $0).last }
        for last in lasts { server.serve("/" + last, body: [], faults: [.status(404)], faultyRequests: nil) }
        let failed = try fixture.download(link("/master.m3u8"))
        #expect(failed.status != 0)
        #expect(!failed.standardError.contains(Self.password) && !failed.standardOutput.contains(Self.password))
        #expect(server.requests.count > 3)
        for request in server.requests {
            #expect(request["authorization"] == Self.basic, "\(request.target) went without the link's password")
        }
        #expect(FileManager.default.fileExists(atPath: fixture.cacheDir))
        #expect(filesHoldingThePassword(under: fixture.folder.path) == [])

        // Given again, the link resumes the presentation with its password, and completes.
        for last in lasts { server.serve("/" + last, body: clip.files[last]!, etag: "\"last\"") }
        let before = server.requests.count
        let resumed = try fixture.download(link("/master.m3u8"))
        #expect(resumed.status == 0, "stderr: \(resumed.standardError)")
        let again = server.requests.dropFirst(before)
        #expect(!again.isEmpty && again.allSatisfy { $0["authorization"] == Self.basic })
        #expect(filesHoldingThePassword(under: fixture.folder.path) == [])
    }

    /// Left half-done with a context to keep (a cookie, and a page whose address carries a
    /// password of its own), an HLS or a DASH presentation leaves no file holding either
    /// password, its context file among them.
    @Test(arguments: ["hls", "dash"]) func aHalfDoneRunKeepsNoPasswordInItsContextEither(kind: String) throws {
        let start: String
        if kind == "hls" {
            let clip = try Clips.hls()
            clip.serve(on: server)
            for last in ["v360", "v720"].compactMap({ clip.segments(of: $0).last }) {
                server.serve("/" + last, body: [], faults: [.status(404)], faultyRequests: nil)
            }
            start = "/master.m3u8"
        } else {
            let clip = try Clips.dash()
            clip.serve(on: server)
            let last = try #require(clip.files.keys.filter { $0.hasPrefix("tl/chunk-stream0-") }.sorted().last)
            server.serve("/" + last, body: [], faults: [.status(404)], faultyRequests: nil)
            start = "/tl/index.mpd"
        }
        let page = "http://fp:page-\(Self.password)@127.0.0.1:\(server.port)/watch?v=1#t=30"
        let failed = try fixture.download(link(start), ["--cookie", "sid=1", "--referer", page])
        #expect(failed.status != 0)
        let kept = FileManager.default.enumerator(atPath: fixture.folder.path)?.compactMap { $0 as? String } ?? []
        #expect(kept.contains { $0.hasSuffix(".context") }, "a context is kept: \(kept)")
        #expect(filesHoldingThePassword(under: fixture.folder.path) == [])
        #expect(server.requests.first?["referer"] == server.url("/watch?v=1"))
    }

    @Test func aVariantOnAnotherHostGetsNoPassword() throws {
        let clip = try Clips.hls()
        clip.serve(on: server)
        let otherHost = "localhost:\(server.port)"
        server.serve("/cross/master.m3u8", body: Array("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            http://\(otherHost)/v360/index.m3u8

            """.utf8))
        let run = try fixture.download(link("/cross/master.m3u8"))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let away = server.requests.filter { $0["host"] == otherHost }
        #expect(away.count > 1)
        #expect(away.allSatisfy { $0["authorization"] == nil })
        #expect(server.requests.filter { $0["host"] != otherHost }.allSatisfy { $0["authorization"] == Self.basic })
    }
}

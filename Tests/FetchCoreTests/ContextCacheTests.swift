@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// The request context kept beside a partial (`partial/KEY.context`): readable by its owner
/// only, replaced by a context given again, used again when none is given, and gone once the
/// download finishes or is deleted. Against a real server that records what each request carried.
struct ContextCacheTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 200_000, seed: 21)

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    static func context(token: String) throws -> RequestContext {
        var context = RequestContext()
        context.headers = [try HeaderField(line: "X-Token: \(token)")]
        context.cookieHeader = "sid=\(token)"
        context.referer = "http://127.0.0.1/page"
        context.userAgent = "TestBrowser/1.0"
        return context
    }

    private var cache: Cache { harness.cache }

    private func contextPath(_ url: String) -> String { cache.contextPath(for: try! WebAddress.identity(url)) }

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    private func run(_ url: String, context: RequestContext?, retries: Int = 0) throws -> DownloadState {
        try harness.run(url, context: context, retries: retries)
    }

    private func leavePartial(_ path: String, context: RequestContext) throws -> String {
        try harness.leavePartial(path, on: server, body: Self.body, context: context)
    }

    @Test func keptOwnerOnlyAndReadBack() throws {
        let url = "http://127.0.0.1:9/v.webm"
        let context = try Self.context(token: "one")
        try cache.keepContext(context, for: url)
        let path = contextPath(url)
        #expect(mode(path) == 0o600, "a context holds cookies: \(String(mode(path) ?? 0, radix: 8))")
        #expect(cache.context(for: url) == context)

        // Kept again: replaced whole, still 0600.
        var other = try Self.context(token: "two")
        other.cookies = [try Cookie(name: "a", value: "b", domain: "example.org", includesSubdomains: true, path: "/",
                                    secure: true, expires: Date(timeIntervalSince1970: 1_900_000_000))]
        other.proxy = try .manual(checking: "socks5://alice:s3cret@127.0.0.1:1080")
        try cache.keepContext(other, for: url)
        #expect(cache.context(for: url) == other)
        #expect(mode(path) == 0o600)
        // Nothing left of the old file beside it (an atomic replace leaves no temporary).
        let names = try FileManager.default.contentsOfDirectory(atPath: cache.partialDirectory)
        #expect(names.filter { $0.contains(".context") } == [(path as NSString).lastPathComponent])

        // An empty context is no context.
        try cache.keepContext(RequestContext(), for: url)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.context(for: url) == nil)
    }

    @Test func aContextFileEditedByHandIsNoContext() throws {
        let url = "http://127.0.0.1:9/v.webm"
        try cache.keepContext(try Self.context(token: "one"), for: url)
        let path = contextPath(url)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "X-Token", with: "X-Token\\r\\nRange")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(cache.context(for: url) == nil, "a header with a line break never comes back from the file")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(cache.context(for: url) == nil)
    }

    @Test func keptWithThePartialUsedAgainAndGoneWhenFinished() throws {
        let url = try leavePartial("/kept.webm", context: try Self.context(token: "one"))
        let path = contextPath(url)
        #expect(mode(path) == 0o600)
        #expect(cache.context(for: url) == (try Self.context(token: "one")))

        // Continued with no context given: the kept one goes with the ranged request.
        let state = try run(url, context: nil)
        let finished = try #require(state.completedPath, "\(state)")
        #expect(try sha256Hex(ofFile: finished) == sha256Hex(of: Self.body))
        let requests = server.requests(to: "/kept.webm")
        #expect(requests.count == 3)
        #expect(requests.last?["range"] == "bytes=50000-")
        for request in requests {
            #expect(request["x-token"] == "one" && request["cookie"] == "sid=one")
            // The page is on port 80, another origin than the server's: its origin only.
            #expect(request["referer"] == "http://127.0.0.1/" && request["user-agent"] == "TestBrowser/1.0")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "the context goes once the video is whole")
    }

    @Test func aContextGivenAgainReplacesTheKeptOne() throws {
        let url = try leavePartial("/replaced.webm", context: try Self.context(token: "one"))
        server.addFaults([.dropAfter(bytes: 20_000)], to: "/replaced.webm", requests: 1)
        server.addFaults([.dropAfter(bytes: 0)], to: "/replaced.webm", requests: 1)
        var second = RequestContext()
        second.headers = [try HeaderField(line: "X-Other: two")]
        guard case .failed = try run(url, context: second) else { Issue.record("the second run should stop early"); return }
        let requests = server.requests(to: "/replaced.webm")
        #expect(requests.count == 4)
        #expect(requests.dropFirst(2).first?["range"] == "bytes=50000-", "the partial is continued")
        let last = try #require(requests.last)
        #expect(last["x-other"] == "two")
        #expect(last["x-token"] == nil && last["cookie"] == nil && last["referer"] == nil, "nothing of the old context")
        #expect(last["user-agent"]?.hasPrefix("Fetchplay/") == true)
        #expect(cache.context(for: try WebAddress.identity(url)) == second)
        #expect(mode(contextPath(url)) == 0o600)
    }

    @Test func everyRetryCarriesTheContext() throws {
        server.serve("/retried.webm", body: Self.body, etag: "\"r\"",
                     faults: [.dropAfter(bytes: 30_000)], faultyRequests: 3)
        let url = server.url("/retried.webm")
        let state = try run(url, context: try Self.context(token: "r"), retries: 5)
        #expect(state.completedPath != nil, "\(state)")
        let requests = server.requests(to: "/retried.webm")
        #expect(requests.count == 4)
        #expect(requests.allSatisfy { $0["x-token"] == "r" && $0["cookie"] == "sid=r" && $0["user-agent"] == "TestBrowser/1.0" })
        #expect(requests.dropFirst().allSatisfy { $0["range"] != nil })
    }

    @Test func deletedWithItsPartialAndBackWithAnUndo() throws {
        let url = try leavePartial("/deleted.webm", context: try Self.context(token: "one"))
        let identity = try WebAddress.identity(url)
        let path = contextPath(url)
        #expect(FileManager.default.fileExists(atPath: path))
        let library = Library(cache: cache)
        library.reload()
        let deletion = try library.delete(url: identity)
        #expect(!FileManager.default.fileExists(atPath: path))
        try library.undo(deletion)
        #expect(cache.context(for: identity) == (try Self.context(token: "one")), "Undo brings the context back with the partial")
        let again = try library.delete(url: identity)
        library.commit(again)
        #expect(!FileManager.default.fileExists(atPath: path))
        let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.root + "/trash")) ?? []
        #expect(left.isEmpty, "nothing of it waits in the trash: \(left)")
    }

    @Test func theKeptContextIsNoStrayFile() throws {
        let url = try leavePartial("/listed.webm", context: try Self.context(token: "one"))
        let library = Library(cache: cache)
        let items = library.reload()
        #expect(items.contains { $0.url == (try? WebAddress.identity(url)) })
        #expect(!cache.strayFiles(known: items).contains(contextPath(url)))
    }

    /// A context from a private window is never written to the cache: not while it runs, not
    /// once paused, and a context kept for the link before goes. Continue in the same process
    /// still sends its cookie and header (the worker keeps it in memory).
    @Test func aPrivateContextIsNeverWrittenAndContinueStillSendsIt() throws {
        let path = "/private.webm"
        server.serve(path, body: Self.body, etag: "\"p\"")
        server.hold(path, offsets: 60_000..<Self.body.count)
        let url = server.url(path)
        try cache.keepContext(try Self.context(token: "kept-before"), for: try WebAddress.identity(url))
        #expect(mode(contextPath(url)) != nil)
        var context = try Self.context(token: "in-memory")
        context.isPrivate = true
        let task = try DownloadTask(url: url, cache: cache, options: DownloadHarness.quickOptions, context: context) { _ in }
        task.start()
        #expect(waitUntil(timeout: .seconds(10)) { server.bytesSent(of: path) >= 60_000 })
        #expect(mode(contextPath(url)) == nil, "no context file while a private download runs")
        task.pause()
        #expect(task.wait() == .paused)
        #expect(mode(contextPath(url)) == nil, "no context file once it is paused")
        #expect(cache.context(for: try WebAddress.identity(url)) == nil)

        server.release(path)
        task.start()
        guard case .completed(let video) = task.wait() else { Issue.record("not completed: \(task.state)"); return }
        #expect(try sha256Hex(ofFile: video) == sha256Hex(of: Self.body))
        let requests = server.requests(to: path)
        #expect(requests.count >= 2, "a first run and a Continue")
        #expect(requests.allSatisfy { $0["cookie"] == "sid=in-memory" && $0["x-token"] == "in-memory" },
                "\(requests.map(\.headers))")
        #expect(mode(contextPath(url)) == nil)
    }
}

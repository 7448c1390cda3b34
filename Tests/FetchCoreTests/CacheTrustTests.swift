@testable import FetchCore
import Foundation
import Glibc
import Testing
import TestSupport

/// The cache is its owner's alone, and what another user owns or could have changed in it is
/// never trusted: the tests play that other user (`nobody`, as root) against real downloads
/// from the fault server.
struct CacheTrustTests {
    let server: FaultServer
    let harness: DownloadHarness
    static let body = TestData.bytes(count: 200_000, seed: 77)
    /// `nobody`: another user of the computer.
    static let otherUser: uid_t = 65534
    static let isRoot = getuid() == 0
    static let canBeAnotherUser = isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    private var cache: Cache { harness.cache }

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    private static func context(token: String) throws -> RequestContext {
        var context = RequestContext()
        context.cookieHeader = "sid=\(token)"
        context.headers = [try HeaderField(line: "X-Token: \(token)")]
        return context
    }

    private func leavePartial(_ path: String, context: RequestContext) throws -> String {
        try harness.leavePartial(path, on: server, body: Self.body, context: context)
    }

    private func run(_ url: String, context: RequestContext?) throws -> DownloadState {
        try harness.run(url, context: context)
    }

    private func paths(of url: String) -> (record: String, data: String, context: String) {
        let key = Cache.key(for: url)
        return (cache.partialPath(key, "json"), harness.partialPath(url), cache.contextPath(for: url))
    }

    // MARK: Modes

    @Test func foldersAre0700AndFiles0600() throws {
        let url = try leavePartial("/modes.webm", context: try Self.context(token: "m"))
        let (record, data, context) = paths(of: url)
        for folder in [cache.root, cache.partialDirectory, cache.videosDirectory] {
            #expect(mode(folder) == 0o700, "\(folder): \(String(mode(folder) ?? 0, radix: 8))")
        }
        for file in [record, data, context] {
            #expect(mode(file) == 0o600, "\(file): \(String(mode(file) ?? 0, radix: 8))")
        }
        do {
            let lock = try PartialLock(cache: cache, key: Cache.key(for: url))
            #expect(mode(cache.partialPath(Cache.key(for: url), "lock")) == 0o600)
            withExtendedLifetime(lock) {}
        }
        try LibrarySettings(maxRunning: 2).save(to: cache)
        #expect(mode(cache.root + "/" + LibrarySettings.fileName) == 0o600)

        // Finished inside the cache (no videos folder given): still the owner's alone.
        let state = try run(url, context: nil)
        let finished = try #require(state.completedPath, "\(state)")
        #expect(finished.hasPrefix(cache.videosDirectory + "/") && mode(finished) == 0o600)
        #expect(mode(cache.videoRecordPath(Cache.key(for: url))) == 0o600)
    }

    @Test func aVideoLeavingTheCacheIsAPersonsFile() throws {
        let videos = harness.folder.path + "/Videos/Fetchplay"
        let cache = try Cache(root: harness.folder.path + "/second", videos: videos)
        server.serve("/out.webm", body: Self.body, etag: "\"o\"")
        let task = try DownloadTask(url: server.url("/out.webm"), cache: cache, options: DownloadHarness.quickOptions) { _ in }
        task.start()
        let finished = try #require(task.wait().completedPath)
        #expect(finished.hasPrefix(videos + "/"))
        #expect(mode(finished) == 0o644, "readable as a normal file: \(String(mode(finished) ?? 0, radix: 8))")
        #expect(mode(videos)! & 0o777 != 0o700, "the videos folder keeps a person's modes")
        #expect(mode(cache.root) == 0o700)
    }

    @Test func aLooseCacheOfOursIsTightened() throws {
        let root = harness.folder.path + "/loose"
        #expect(mkdir(root, 0o755) == 0 && chmod(root, 0o755) == 0)
        #expect(mkdir(root + "/partial", 0o777) == 0 && chmod(root + "/partial", 0o777) == 0)
        let key = Cache.key(for: "http://127.0.0.1:9/loose.webm")
        let lockPath = root + "/partial/\(key).lock"
        #expect(FileManager.default.createFile(atPath: lockPath, contents: nil, attributes: [.posixPermissions: 0o644]))

        let cache = try Cache(root: root)
        #expect(mode(root) == 0o700)
        #expect(mode(root + "/partial") == 0o700)
        let lock = try PartialLock(cache: cache, key: key)
        #expect(mode(lockPath) == 0o600, "a file of ours left looser is tightened when opened")
        withExtendedLifetime(lock) {}
    }

    // MARK: Another user

    @Test(.enabled(if: canBeAnotherUser, "needs root and setpriv to act as nobody"))
    func anotherUserCannotReadThePartialTheRecordOrTheContext() throws {
        let url = try leavePartial("/private.webm", context: try Self.context(token: "S3CRET"))
        let (record, data, context) = paths(of: url)
        func catAsNobody(_ file: String) throws -> CommandResult {
            try Command.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/cat", file])
        }
        for file in [record, data, context] {
            let denied = try catAsNobody(file)
            #expect(denied.status != 0 && denied.standardOutput.isEmpty && denied.standardError.contains("Permission denied"),
                    "nobody read \(file): \(denied.status) \(denied.standardError)")
        }
        // With the folders opened to passers-by, the files' own modes still keep them out.
        #expect(chmod(cache.root, 0o711) == 0 && chmod(cache.partialDirectory, 0o711) == 0)
        for file in [record, data, context] {
            let denied = try catAsNobody(file)
            #expect(denied.status != 0 && denied.standardOutput.isEmpty && denied.standardError.contains("Permission denied"),
                    "nobody read \(file) through open folders: \(denied.status) \(denied.standardError)")
        }
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func aRecordOfAnotherUserIsIgnoredAndTheDownloadStartsOver() throws {
        let url = try leavePartial("/planted-record.webm", context: RequestContext())
        let record = paths(of: url).record
        #expect(harness.partialRecord(url) != nil)
        #expect(chown(record, Self.otherUser, gid_t(Self.otherUser)) == 0)
        #expect(harness.partialRecord(url) == nil, "a record nobody owns is as if absent")

        let state = try run(url, context: nil)
        let finished = try #require(state.completedPath, "\(state)")
        #expect(try sha256Hex(ofFile: finished) == sha256Hex(of: Self.body))
        let last = try #require(server.requests(to: "/planted-record.webm").last)
        #expect(last["range"] == nil, "started over: no record vouches for the bytes on disk")
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func aContextOfAnotherUserIsIgnoredAndItsCookiesNeverSent() throws {
        let url = try leavePartial("/planted-context.webm", context: try Self.context(token: "mine"))
        let path = paths(of: url).context
        // Planted: another user's context carrying their cookie.
        try cache.keepContext(try Self.context(token: "PLANTED"), for: url)
        #expect(chown(path, Self.otherUser, gid_t(Self.otherUser)) == 0)
        #expect(cache.context(for: url) == nil)

        let before = server.requests(to: "/planted-context.webm").count
        let state = try run(url, context: nil)
        #expect(state.completedPath != nil, "\(state)")
        let after = server.requests(to: "/planted-context.webm").dropFirst(before)
        #expect(!after.isEmpty)
        for request in after {
            #expect(request["cookie"] == nil && request["x-token"] == nil, "\(request.headers)")
        }
    }

    @Test func aContextInAFolderOthersCanChangeIsIgnored() throws {
        let url = try leavePartial("/open-folder.webm", context: try Self.context(token: "PLANTED"))
        #expect(cache.context(for: url) != nil)
        #expect(chmod(cache.partialDirectory, 0o777) == 0)
        #expect(cache.context(for: url) == nil, "anyone could have put it there")
        #expect(harness.partialRecord(url) == nil, "nor a record beside it")

        let before = server.requests(to: "/open-folder.webm").count
        let state = try run(url, context: nil)
        #expect(state.completedPath != nil, "\(state)")
        for request in server.requests(to: "/open-folder.webm").dropFirst(before) {
            #expect(request["cookie"] == nil && request["x-token"] == nil, "\(request.headers)")
        }
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func settingsOfAnotherUserAreIgnored() throws {
        let store = SettingsStore(path: harness.folder.path + "/config/fetchplay/settings.ini")
        var chosen = AppSettings()
        chosen.maxRunning = 7
        try store.save(chosen)
        #expect(store.load().maxRunning == 7)
        #expect(chown(store.path, Self.otherUser, gid_t(Self.otherUser)) == 0)
        #expect(store.load() == AppSettings(), "another user's settings read as none")

        try LibrarySettings(maxRunning: 5).save(to: cache)
        #expect(chown(cache.root + "/" + LibrarySettings.fileName, Self.otherUser, gid_t(Self.otherUser)) == 0)
        #expect(LibrarySettings.load(from: cache) == LibrarySettings())
    }
}

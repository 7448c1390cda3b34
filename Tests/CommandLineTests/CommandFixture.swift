import Foundation
import TestSupport

/// What every command-line test starts from: a test server, a folder with a cache in it, and
/// the cache's partial record read the way a person would, from the JSON on disk.
struct CommandFixture {
    let server: FaultServer
    let folder: TemporaryDirectory
    var cacheDir: String { folder.file("cache") }

    init(prefix: String) throws {
        server = try FaultServer()
        folder = try TemporaryDirectory(prefix: prefix)
    }

    /// `fetchplay --download URL --cache-dir CACHE [arguments]`, run to its end.
    func download(_ url: String, name: String = "run", _ arguments: [String] = []) throws -> FetchplayProcess {
        try FetchplayProcess.run(["--download", url, "--cache-dir", cacheDir] + arguments, folder: folder, name: name)
    }

    /// The partial's record (there is one URL per test), or nil.
    func partialRecord() -> [String: Any]? {
        let partial = cacheDir + "/partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
        guard let name = names.first(where: { $0.hasSuffix(".json") }),
              let data = FileManager.default.contents(atPath: partial + "/" + name) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    var partialDurableBytes: Int64? { (partialRecord()?["durableBytes"] as? NSNumber)?.int64Value }

    /// The folders of presentations (HLS, DASH) still in the cache.
    func presentationFolders() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: cacheDir + "/hls")) ?? []
    }

    /// The resources (segments, init sections) finished so far in the presentations' own
    /// folders; `keep` chooses among their files (default: all but the records).
    func finishedSegments(_ keep: (String) -> Bool = { !$0.hasSuffix(".json") }) -> [String] {
        presentationFolders().flatMap { key in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(cacheDir)/hls/\(key)/segments/videos")) ?? [])
                .filter(keep)
        }
    }
}

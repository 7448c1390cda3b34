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

    /// The pieces (segments, init sections) finished so far in the presentations' own
    /// folders, as their segment stores list them.
    func finishedSegments() -> [String] {
        presentationFolders().flatMap { key in
            (try? String(contentsOfFile: "\(cacheDir)/hls/\(key)/segments/finished", encoding: .utf8))?
                .split(separator: "\n").map(String.init) ?? []
        }
    }
}

/// Whether the requests for a byte-ranged file each asked for a range of their own: none for the
/// whole file, none twice (every segment is a piece of the store, fetched once).
func eachRangeOnce(_ ranges: [String?]) -> Bool { !ranges.contains(nil) && Set(ranges).count == ranges.count }

import Foundation
import Localization

/// The library's two settings, kept in `settings.json` at the cache root.
///
/// They belong to that cache folder (a cap on *its* size), so a `--cache-dir` elsewhere has its
/// own. A missing or unreadable file means the defaults.
public struct LibrarySettings: Codable, Sendable, Equatable {
    /// Downloads that run at once; the rest wait in order.
    public var maxRunning: Int = 3
    /// Bytes the cache may hold; nil for no cap.
    public var sizeCap: Int64?

    public init(maxRunning: Int = 3, sizeCap: Int64? = nil) {
        self.maxRunning = maxRunning
        self.sizeCap = sizeCap
    }

    /// Keys left out of the file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxRunning = try container.decodeIfPresent(Int.self, forKey: .maxRunning) ?? 3
        sizeCap = try container.decodeIfPresent(Int64.self, forKey: .sizeCap)
    }

    public static let fileName = "settings.json"

    /// The settings stored in `cache`, or the defaults.
    public static func load(from cache: Cache) -> LibrarySettings {
        let path = cache.root + "/" + fileName
        guard let data = FileIO.readSmallFile(path) else { return LibrarySettings() }
        do {
            var settings = try JSONDecoder().decode(LibrarySettings.self, from: data)
            settings.maxRunning = max(1, settings.maxRunning)
            return settings
        } catch {
            Log.warning("ignoring unreadable settings \(path): \(error)")
            return LibrarySettings()
        }
    }

    /// Writes the settings into `cache` atomically.
    public func save(to cache: Cache) throws(DownloadError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .fileSystem(tr("cannot encode the settings")) }
        try FileIO.replaceAtomically(path: cache.root + "/" + Self.fileName, contents: data)
    }
}

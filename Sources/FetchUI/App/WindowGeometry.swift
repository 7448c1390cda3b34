import CGLib
import Foundation

/// The window's size as it was left, kept in `$XDG_CONFIG_HOME/fetchplay/window.json`.
///
/// Read once when the window opens, written when it closes: a few bytes, written beside the file
/// and renamed over it, without fsync (losing it in a power cut only loses a size).
public struct WindowGeometry: Codable, Equatable, Sendable {
    /// Pixels.
    public var width: Int32
    /// Pixels.
    public var height: Int32
    public var maximized: Bool

    /// The smallest size worth restoring, in pixels (a phone-sized GNOME window).
    public static let minimum = (width: Int32(360), height: Int32(400))

    public init(width: Int32, height: Int32, maximized: Bool) {
        self.width = width
        self.height = height
        self.maximized = maximized
    }

    /// `$XDG_CONFIG_HOME/fetchplay/window.json`.
    public static var defaultFile: String {
        let config = String(cString: g_get_user_config_dir())
        return (config as NSString).appendingPathComponent("fetchplay/window.json")
    }

    /// The geometry stored in `file`; nil when there is none or it makes no sense.
    public static func load(from file: String) -> WindowGeometry? {
        guard let data = FileManager.default.contents(atPath: file),
              let geometry = try? JSONDecoder().decode(WindowGeometry.self, from: data),
              geometry.width >= minimum.width, geometry.height >= minimum.height,
              geometry.width <= 16384, geometry.height <= 16384 else { return nil }
        return geometry
    }

    /// Writes the geometry to `file` (its folder is created).
    public func save(to file: String) {
        let url = URL(fileURLWithPath: file)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? data.write(to: url, options: .atomic)
    }
}

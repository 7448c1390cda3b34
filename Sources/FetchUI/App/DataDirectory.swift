import Foundation

/// Finds Fetchplay's `data/` folder (CSS, icons) so the app runs from the build folder as is.
///
/// In order: `$FETCHPLAY_DATA_DIR`; a `data/` folder holding the desktop file in the executable's
/// folder or any folder above it (a build in `.build/debug` inside the checkout); an installed
/// `../share/fetchplay` beside the executable's `bin/`.
public struct DataDirectory: Sendable, Equatable {
    public let path: String

    /// The file that marks a folder as Fetchplay's data folder.
    public static let marker = "io.github.fetchplay.Fetchplay.desktop"

    public init(path: String) { self.path = path }

    public var styleSheet: String { path + "/style.css" }
    public var icons: String { path + "/icons" }

    /// The data folder for this process, or nil when there is none (the app still runs, plainer).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              executable: String = currentExecutable()) -> DataDirectory? {
        let files = FileManager.default
        if let override = environment["FETCHPLAY_DATA_DIR"], !override.isEmpty {
            return DataDirectory(path: override)
        }
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent().standardizedFileURL
        while true {
            let candidate = folder.appendingPathComponent("data")
            if files.fileExists(atPath: candidate.appendingPathComponent(marker).path) {
                return DataDirectory(path: candidate.path)
            }
            let installed = folder.appendingPathComponent("share/fetchplay")
            if files.fileExists(atPath: installed.appendingPathComponent(marker).path) {
                return DataDirectory(path: installed.path)
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// The running executable's real path (symlinks resolved).
    public static func currentExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "."
    }
}

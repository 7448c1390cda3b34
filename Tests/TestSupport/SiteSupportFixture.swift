import Foundation

/// The built `fetchplay` program: beside the test bundle in the build folder, or `FETCHPLAY_BIN`.
public enum FetchplayBinary {
    public static let path: String = {
        if let path = ProcessInfo.processInfo.environment["FETCHPLAY_BIN"] { return path }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
        // The test binary may sit inside FetchplayPackageTests.xctest/…
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("fetchplay").path),
              folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("fetchplay").path
    }()
}

/// Site support installed once per test run, the way a person installs it: `fetchplay
/// --update-site-support` with a data folder of the run's own, so pip really runs and fetches
/// yt-dlp from PyPI (the slow part: once). Every test that needs a real yt-dlp asks for
/// `shared` and finds it in `dataHome`; pip's downloads are cached in the run's folder too.
public final class SiteSupportFixture: Sendable {
    public let folder: TemporaryDirectory
    /// The `XDG_DATA_HOME` it was installed into.
    public let dataHome: String
    /// pip's cache, for other installs of the same run.
    public let pipCache: String
    /// What `--update-site-support` did.
    public let install: CommandResult

    /// The run's one install (made by the first test that asks).
    public static let shared: Result<SiteSupportFixture, TestSupportError> = {
        do {
            return .success(try SiteSupportFixture())
        } catch {
            return .failure(TestSupportError("site support could not be installed: \(error)"))
        }
    }()

    /// The managed yt-dlp's program.
    public var program: String { dataHome + "/fetchplay/site-support/bin/yt-dlp" }

    private init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-site-support")
        dataHome = folder.file("data")
        pipCache = folder.file("pip-cache")
        install = try Command.run(FetchplayBinary.path, ["--update-site-support"],
                                  environment: Self.environment(dataHome: dataHome, pipCache: pipCache, config: folder.file("config")),
                                  timeout: .seconds(300))
    }

    /// The test's environment with its own data, configuration and pip cache folders.
    public static func environment(dataHome: String, pipCache: String, config: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = dataHome
        environment["XDG_CONFIG_HOME"] = config
        environment["PIP_CACHE_DIR"] = pipCache
        environment["LANG"] = "C.UTF-8"
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        return environment
    }
}

/// A test fixture that could not be made.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

import Foundation

/// The XDG base folders, read from the environment given (the process's, or a test's) at each
/// call: GLib's `g_get_user_config_dir` and its kin keep their first answer for the process.
enum BaseFolder {
    /// `variable` (`XDG_CONFIG_HOME`…) when it is absolute, as the spec asks, else `~/fallback`.
    static func path(_ variable: String, else fallback: String, in environment: [String: String]) -> String {
        if let folder = environment[variable], folder.hasPrefix("/") { return folder }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/" + fallback
    }
}

/// Facts about the app that the command line, the About window and the packages share.
public enum AppInfo {
    /// The version people see (`fetchplay --version`, About, the package's file name).
    public static let version = "0.2.0"
    public static let id = "io.github.fetchplay.Fetchplay"
}

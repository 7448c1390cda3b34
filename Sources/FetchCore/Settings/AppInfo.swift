/// Facts about the app that the command line, the About window and the packages share.
///
/// The metainfo (`data/…metainfo.xml`) says the same; a window test compares them.
public enum AppInfo {
    /// The version people see (`fetchplay --version`, About, the package's file name).
    public static let version = "0.2.0"
    /// The application's id: its D-Bus name, its icon's and desktop file's name.
    public static let id = "io.github.fetchplay.Fetchplay"
    /// The licence, as an SPDX expression (the metainfo's `project_license`).
    public static let license = "GPL-3.0-or-later"
    /// The project's home page (the metainfo's homepage).
    public static let website = "https://github.com/fetchplay/fetchplay"
    /// Who makes it (the metainfo's `developer_name`).
    public static let developer = "The Fetchplay developers"
}

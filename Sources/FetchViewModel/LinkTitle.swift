import FetchCore

/// A name for a link's title line before anything better is known (a server's file name, the
/// page's title): the name its record will have, so the title and the library agree (a
/// manifest's `manifest.mpd` is "manifest" in both), else the link itself.
public enum LinkTitle {
    public static func of(_ url: String) -> String {
        let title = StreamLink.title(of: url)
        return title.isEmpty ? url : title
    }
}

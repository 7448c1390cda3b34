import Foundation

/// A name for a link's title line before anything better is known (a server's file name, the
/// page's title): the URL's last path component, decoded, else its host.
public enum LinkTitle {
    public static func of(_ url: String) -> String {
        guard let parsed = URL(string: url) else { return url }
        let last = parsed.lastPathComponent
        return last.isEmpty || last == "/" ? (parsed.host ?? url) : (last.removingPercentEncoding ?? last)
    }
}

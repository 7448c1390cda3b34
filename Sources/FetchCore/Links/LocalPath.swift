import Foundation

/// Text a person typed that names a file on this computer rather than a link: an absolute path
/// (`/home/me/v.mp4`), one from the home folder (`~/Videos/v.mp4`), a relative one
/// (`./v.mp4`, `../v.mp4`, `clips/v.mp4` whose first part is no host name), or a bare file
/// name (`video.mp4`) when such a file is there. Such text is never requested from a network.
public struct LocalPath: Sendable, Equatable {
    /// As typed (for messages).
    public let typed: String
    /// Where it points, absolute: `~` expanded, a relative path from the current folder.
    public let path: String
    /// A file (not a folder) is there, which can be opened.
    public let isFile: Bool

    /// Nil when `text` is no local path (a link, or a bare name with nothing by that name here).
    public init(typed: String, path: String, isFile: Bool) {
        self.typed = typed
        self.path = path
        self.isFile = isFile
    }

    public init?(_ text: String) {
        guard !text.isEmpty, !text.contains("://") else { return nil }
        let home = text == "~" || text.hasPrefix("~/")
        let firstPart = text.prefix { $0 != "/" }
        let isPath = text.hasPrefix("/") || home || text.hasPrefix("./") || text.hasPrefix("../")
            // `clips/v.mp4`: a folder, not a host (`example.com/v.mp4`, `localhost:8080/v`).
            || (text.contains("/") && !firstPart.contains(":") && HostName(String(firstPart)) == nil)
        // `~` is $HOME, as a shell reads it; the rest is relative to the current folder.
        let homeFolder = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        let expanded = URL(fileURLWithPath: home ? homeFolder + "/" + text.dropFirst(2)
                                                 : text.hasPrefix("/") ? text
                                                 : FileManager.default.currentDirectoryPath + "/" + text).standardized.path
        let isFile = Self.isRegularFile(expanded)
        // A bare name is a file only when one is there: else it may be a host (`example.com`).
        guard isPath || (!text.contains(":") && isFile) else { return nil }
        typed = text
        path = expanded
        self.isFile = isFile
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}

import Foundation
import Testing
import TestSupport

/// `scripts/install` puts every file where the desktop expects it, the installed desktop file
/// and metainfo pass their validators, the installed binary finds its translations beside it,
/// and `--uninstall` takes everything away again. The test installs the debug binary
/// (`--binary`) so it needs no release build; that the release binary needs no Swift toolchain
/// is a property of its link (`--static-swift-stdlib`), checked by hand with ldd.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/desktop-file-validate")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/appstreamcli")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/msgfmt"),
                "needs desktop-file-utils, appstream and gettext (scripts/install-deps)"))
struct InstallTests {
    static let appID = "io.github.fetchplay.Fetchplay"
    static let checkout: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let expectedFiles = [
        "bin/fetchplay",
        "libexec/fetchplay-window",
        "share/applications/\(appID).desktop",
        "share/metainfo/\(appID).metainfo.xml",
        "share/icons/hicolor/scalable/apps/\(appID).svg",
        "share/icons/hicolor/symbolic/apps/\(appID)-symbolic.svg",
        "share/locale/zh_CN/LC_MESSAGES/fetchplay.mo",
        "share/fetchplay/style.css",
        "share/fetchplay/\(appID).desktop",
    ]

    func install(_ arguments: [String]) throws -> CommandResult {
        try Command.run(Self.checkout + "/scripts/install", arguments, timeout: .seconds(120))
    }

    @Test func installValidateRunUninstall() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-install")
        let prefix = folder.file("prefix")
        let installed = try install(["--prefix", prefix, "--binary", FetchplayProcess.executable])
        try #require(installed.status == 0, "scripts/install failed: \(installed.standardError)")

        for file in Self.expectedFiles {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "missing \(file)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/fetchplay"))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/libexec/fetchplay-window"))

        let desktop = prefix + "/share/applications/\(Self.appID).desktop"
        let desktopCheck = try Command.run("/usr/bin/desktop-file-validate", [desktop])
        #expect(desktopCheck.status == 0 && desktopCheck.output.isEmpty && desktopCheck.standardError.isEmpty,
                "desktop-file-validate: \(desktopCheck.output)\(desktopCheck.standardError)")
        let entry = try String(contentsOfFile: desktop, encoding: .utf8)
        #expect(entry.contains("\nExec=\(prefix)/bin/fetchplay %U\n"), "the entry runs the installed binary")
        #expect(entry.contains("\nX-GNOME-UsesNotifications=true\n"))
        #expect(entry.contains("\nName[zh_CN]=") && entry.contains("\nComment[zh_CN]=下载视频"))
        // One menu: AudioVideo with its Video subcategory, and no second main category.
        let categories = entry.split(separator: "\n").first { $0.hasPrefix("Categories=") }?
            .dropFirst("Categories=".count).split(separator: ";").map(String.init) ?? []
        let otherMains = ["Audio", "Development", "Education", "Game", "Graphics", "Network", "Office",
                          "Science", "Settings", "System", "Utility"]
        #expect(categories.contains("AudioVideo") && categories.contains("Video"))
        #expect(Set(categories).isDisjoint(with: otherMains), "\(categories)")

        let metainfo = prefix + "/share/metainfo/\(Self.appID).metainfo.xml"
        let appstream = try Command.run("/usr/bin/appstreamcli", ["validate", "--no-net", "--no-color", metainfo])
        let problems = appstream.output.split(separator: "\n").filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") || $0.hasPrefix("I:") }
        #expect(appstream.status == 0 && problems.isEmpty, "appstreamcli validate: \(appstream.output)")
        let component = try String(contentsOfFile: metainfo, encoding: .utf8)
        for part in ["<project_license>", "<developer_name>", "<url type=\"homepage\">", "<release version=",
                     "<screenshot type=\"default\">", "<content_rating type=\"oars-1.1\"", "<provides>",
                     "<summary xml:lang=\"zh_CN\">"] {
            #expect(component.contains(part), "metainfo lacks \(part)")
        }

        // One version everywhere: the binary's (AppInfo.version) is the metainfo's newest release.
        let version = try Command.run(prefix + "/bin/fetchplay", ["--version"])
        let newest = component.range(of: #"<release version="([^"]+)""#, options: .regularExpression)
            .map { String(component[$0].dropFirst("<release version=\"".count).dropLast()) }
        #expect(version.output == "fetchplay \(newest ?? "?")\n", "--version says \(version.output)")

        // The installed binaries find PREFIX/share/locale (--help is the window's program's, found
        // in PREFIX/libexec), and --list needs no display.
        let environment = ["LANG": "C.UTF-8", "LANGUAGE": "zh_CN", "PATH": "/usr/bin:/bin"]
        let help = try Command.run("/usr/bin/env", ["-i"] + environment.map { "\($0)=\($1)" }
                                   + [prefix + "/bin/fetchplay", "--help"])
        #expect(help.status == 0 && help.output.contains("列出缓存中的视频"), "\(help.output)\(help.standardError)")
        let list = try Command.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", prefix + "/bin/fetchplay",
                                                    "--list", "--cache-dir", folder.file("cache")])
        #expect(list.status == 0, "\(list.standardError)")

        let removed = try install(["--prefix", prefix, "--uninstall"])
        #expect(removed.status == 0, "\(removed.standardError)")
        let left = FileManager.default.subpaths(atPath: prefix) ?? []
        #expect(left == [], "left behind: \(left)")
    }
}

import Foundation
import Testing
import TestSupport

/// `scripts/install` puts every file where the desktop expects it, the installed desktop file
/// and metainfo pass their validators, the installed binary finds its translations beside it,
/// the browser extension and the native messaging host's manifests go where the browsers look
/// (for a prefix in the home folder and for a system prefix), and `--uninstall` takes
/// everything away again. The test installs the debug binary
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

    static let hostName = "io.github.fetchplay.fetchplay"
    static let extensionOrigin = "chrome-extension://peobkohdifbjbdcfmfmpemobecfkeiif/"
    static let geckoID = "fetchplay@fetchplay.github.io"

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
        "share/fetchplay/browser/chromium/manifest.json",
        "share/fetchplay/browser/chromium/background.js",
        "share/fetchplay/browser/chromium/_locales/zh_CN/messages.json",
    ]

    /// Runs scripts/install with `home` as HOME (and no XDG_CONFIG_HOME, so ~/.config is the
    /// browsers' configuration folder).
    func install(_ arguments: [String], home: String) throws -> CommandResult {
        try Command.run("/usr/bin/env", ["-u", "XDG_CONFIG_HOME", "HOME=\(home)", Self.checkout + "/scripts/install"] + arguments,
                        timeout: .seconds(120))
    }

    /// The native messaging host manifest at `path` as a dictionary, or nil.
    func hostManifest(_ path: String) -> [String: Any]? {
        FileManager.default.contents(atPath: path)
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    /// Each browser's manifest names the installed host and allows exactly Fetchplay's extension.
    func expectHostManifests(chromium: [String], firefox: [String], host: String) {
        for (path, key, allowed) in chromium.map({ ($0, "allowed_origins", Self.extensionOrigin) })
            + firefox.map({ ($0, "allowed_extensions", Self.geckoID) }) {
            let file = path + "/\(Self.hostName).json"
            guard let manifest = hostManifest(file) else {
                Issue.record("no host manifest at \(file)")
                continue
            }
            #expect(manifest["name"] as? String == Self.hostName, "\(file)")
            #expect(manifest["type"] as? String == "stdio", "\(file)")
            #expect(manifest["path"] as? String == host, "\(file): \(manifest["path"] ?? "no path")")
            #expect(manifest[key] as? [String] == [allowed], "\(file): \(manifest)")
            #expect(Set(manifest.keys) == ["name", "description", "path", "type", key], "\(file): \(manifest.keys)")
        }
    }

    /// The extension's id, which Chromium derives from the manifest's key: the first 32 hex
    /// digits of the key's SHA-256, each written as a letter a–p.
    static func extensionID(key: String) -> String? {
        guard let der = Data(base64Encoded: key) else { return nil }
        return String(sha256Hex(of: Array(der)).prefix(32).map { digit in
            Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(digit.hexDigitValue!)))
        })
    }

    @Test func installValidateRunUninstall() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-install")
        let home = folder.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let prefix = home + "/.local"
        let installed = try install(["--prefix", prefix, "--binary", FetchplayProcess.executable], home: home)
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

        // The browser side: the unpacked extension (every file of browser/, with the key that
        // gives the id the host manifests allow and the app's version), the host as a symlink to
        // the installed fetchplay, and a manifest for each browser in the home folder.
        let extensionFolder = prefix + "/share/fetchplay/browser/chromium"
        for file in FileManager.default.subpaths(atPath: Self.checkout + "/browser") ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: Self.checkout + "/browser/" + file, isDirectory: &isFolder),
                  !isFolder.boolValue else { continue }
            #expect(FileManager.default.contents(atPath: extensionFolder + "/" + file)
                    == FileManager.default.contents(atPath: Self.checkout + "/browser/" + file), "browser/\(file)")
        }
        let extensionManifest = try #require(FileManager.default.contents(atPath: extensionFolder + "/manifest.json")
            .flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect((extensionManifest["key"] as? String).flatMap(Self.extensionID) == "peobkohdifbjbdcfmfmpemobecfkeiif")
        #expect(version.output == "fetchplay \(extensionManifest["version"] as? String ?? "?")\n",
                "the extension's version is the app's")
        let host = prefix + "/libexec/fetchplay-browser-host"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: host) == "../bin/fetchplay")
        #expect(FileManager.default.isExecutableFile(atPath: host))
        expectHostManifests(chromium: [home + "/.config/chromium/NativeMessagingHosts",
                                       home + "/.config/google-chrome/NativeMessagingHosts"],
                            firefox: [home + "/.mozilla/native-messaging-hosts"], host: host)

        let removed = try install(["--prefix", prefix, "--uninstall"], home: home)
        #expect(removed.status == 0, "\(removed.standardError)")
        let left = FileManager.default.subpaths(atPath: prefix) ?? []
        #expect(left == [], "left behind: \(left)")
        let leftInHome = FileManager.default.subpaths(atPath: home) ?? []
        #expect(leftInHome == [".local"], "left behind in the home folder: \(leftInHome)")
    }

    /// A system prefix (staged with --destdir, as the .deb is) puts the host's manifests where
    /// every user's browser reads them, naming the host under that prefix.
    @Test func systemPrefixPutsHostManifestsInTheSystemFolders() throws {
        let folder = try TemporaryDirectory(prefix: "fetchplay-install-system")
        let stage = folder.file("stage")
        let home = folder.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let arguments = ["--prefix", "/usr", "--destdir", stage]
        let installed = try install(arguments + ["--binary", FetchplayProcess.executable], home: home)
        try #require(installed.status == 0, "scripts/install failed: \(installed.standardError)")

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: stage + "/usr/libexec/fetchplay-browser-host")
                == "../bin/fetchplay")
        #expect(FileManager.default.fileExists(atPath: stage + "/usr/share/fetchplay/browser/chromium/manifest.json"))
        expectHostManifests(chromium: [stage + "/etc/chromium/native-messaging-hosts",
                                       stage + "/etc/opt/chrome/native-messaging-hosts"],
                            firefox: [stage + "/usr/lib/mozilla/native-messaging-hosts"],
                            host: "/usr/libexec/fetchplay-browser-host")
        #expect((FileManager.default.subpaths(atPath: home) ?? []) == [], "a system install writes nothing in the home folder")

        let removed = try install(arguments + ["--uninstall"], home: home)
        #expect(removed.status == 0, "\(removed.standardError)")
        let left = FileManager.default.subpaths(atPath: stage) ?? []
        #expect(left == ["usr"], "left behind: \(left)")
    }
}

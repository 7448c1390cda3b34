import Foundation
import Testing
@testable import FetchCore
import TestSupport

/// Where site support is looked for, and the words of a program that failed.
struct SiteSupportTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory(prefix: "fetchplay-site-support") }

    @Test func theManagedCopyIsInTheDataFolderAndComesBeforePath() throws {
        let data = folder.file("data"), bin = folder.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let environment = ["XDG_DATA_HOME": data, "PATH": bin, "HOME": folder.path]
        #expect(SiteSupport.managedFolder(environment: environment) == data + "/fetchplay/site-support")
        #expect(SiteSupport.managedFolder(environment: ["HOME": "/home/ana"]) == "/home/ana/.local/share/fetchplay/site-support")
        #expect(SiteSupport.managedFolder(environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "relative"])
                == "/home/ana/.local/share/fetchplay/site-support")
        #expect(SiteSupport.locate(environment: environment) == nil)
        _ = try folder.write(Array("#!/bin/sh\necho 2026.01.02\n".utf8), to: "bin/yt-dlp")
        chmod(bin + "/yt-dlp", 0o755)
        let onPath = try #require(SiteSupport.locate(environment: environment))
        #expect(onPath == SiteSupport.Installation(kind: .onPath, program: bin + "/yt-dlp"))
        #expect(SiteSupport.status(environment: environment).version == "2026.01.02")
        try FileManager.default.createDirectory(atPath: data + "/fetchplay/site-support/bin", withIntermediateDirectories: true)
        _ = try folder.write(Array("#!/bin/sh\necho 2026.03.04.181512\n".utf8), to: "data/fetchplay/site-support/bin/yt-dlp")
        chmod(data + "/fetchplay/site-support/bin/yt-dlp", 0o755)
        #expect(SiteSupport.locate(environment: environment)?.kind == .managed)
        let status = SiteSupport.status(environment: environment)
        #expect(status.version == "2026.03.04.181512" && SiteSupport.isNightly(status.version!))
        #expect(!SiteSupport.isNightly("2026.03.04"))
    }

    @Test func aVersionLineThatIsNoVersionIsNone() throws {
        let bin = folder.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        _ = try folder.write(Array("#!/bin/sh\nprintf '\\033[31mhello <b>\\n'\n".utf8), to: "bin/yt-dlp")
        chmod(bin + "/yt-dlp", 0o755)
        let status = SiteSupport.status(environment: ["PATH": bin, "XDG_DATA_HOME": folder.file("none")])
        #expect(status.installation != nil && status.version == nil)
    }

    /// pip's configuration for the app's proxy: only one given, and none that would be read as
    /// more settings.
    @Test func pipsConfigurationHoldsOnlyAProxyGiven() {
        #expect(SiteSupport.pipConfigurationFile(proxy: "http://u:p@proxy:3128") == "[global]\nproxy = http://u:p@proxy:3128\n")
        #expect(SiteSupport.pipConfigurationFile(proxy: "") == nil)
        #expect(SiteSupport.pipConfigurationFile(proxy: nil) == nil)
        #expect(SiteSupport.pipConfigurationFile(proxy: "http://proxy:3128\nindex-url = http://evil") == nil)
    }

    @Test func theLastErrorLineIsQuotedNeverATraceback() {
        let said = """
            Traceback (most recent call last):
              File "x.py", line 1, in <module>
            ValueError: boom
            ERROR: first
            ERROR: [generic] page: Unsupported URL: http://h/\u{1b}[0m
            """
        #expect(SiteSupport.lastErrorLine(said) == "[generic] page: Unsupported URL: http://h/[0m")
        #expect(SiteSupport.lastErrorLine("Traceback (most recent call last):\nValueError: boom\n") == nil)
        #expect(SiteSupport.lastErrorLine("ERROR: " + String(repeating: "x", count: 5000))?.count == 300)
        // Neither a link's password nor a bidi override reaches the sentence.
        let quoted = SiteSupport.lastErrorLine("ERROR: HTTP Error 403 on https://me:s3cret@example.org/v \u{202E}gpj.exe")
        #expect(quoted?.contains("s3cret") == false && quoted?.contains("\u{202E}") == false, "\(quoted ?? "nil")")
        // Nor a proxy's, whatever its scheme, in quotes too.
        let proxy = SiteSupport.lastErrorLine("ERROR: Unable to connect to proxy 'socks5://fp:px-S3CRET@127.0.0.1:1080' or (http://a:b-S3CRET@h:3128)")
        #expect(proxy == "Unable to connect to proxy 'socks5://127.0.0.1:1080' or (http://h:3128)", "\(proxy ?? "nil")")
    }
}

import Foundation
import Testing
import TestSupport

/// The built binary finds its catalogues beside itself (BIN/../share/locale, where scripts/test
/// builds them) and speaks the user's language.
struct TranslatedCommandLineTests {
    /// LANGUAGE picks the catalogue; the C.UTF-8 locale of `headlessEnvironment` keeps UTF-8.
    static let chinese = ["LANGUAGE": "zh_CN"]

    @Test func aBadLinkIsExplainedInChinese() throws {
        let folder = try TemporaryDirectory()
        let run = try FetchplayProcess.run(["--download", "not a link", "--cache-dir", folder.file("cache")],
                                           folder: folder, environment: Self.chinese)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "fetchplay: “not a link”不是网址；请粘贴以 http:// 或 https:// 开头的链接。\n")
    }

    @Test func helpIsInChinese() throws {
        let folder = try TemporaryDirectory()
        let run = try FetchplayProcess.run(["--help"], folder: folder, environment: Self.chinese)
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("下载视频并以进度环显示进度，可随时暂停和继续，下载完成后即可播放。"))
        #expect(run.standardOutput.contains("--list"))
        #expect(run.standardOutput.contains("列出缓存中的视频"))
    }

    @Test func englishWithoutALanguage() throws {
        let folder = try TemporaryDirectory()
        let run = try FetchplayProcess.run(["--download", "not a link", "--cache-dir", folder.file("cache")],
                                           folder: folder)
        #expect(run.standardError.hasPrefix("fetchplay: “not a link” is not a web address"))
    }
}

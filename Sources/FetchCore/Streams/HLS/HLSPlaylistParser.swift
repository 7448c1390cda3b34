import Foundation

/// Reads the text of an HLS playlist (RFC 8216): the tags that decide what to fetch and how to
/// join it. Pure: no network, no disk; every link comes out resolved against `base`.
///
/// Tags Fetchplay does not need (`EXT-X-VERSION`, `EXT-X-DISCONTINUITY`, `EXT-X-MEDIA` other
/// than audio, `EXT-X-I-FRAME-STREAM-INF`, `EXT-X-SESSION-DATA`, `EXT-X-INDEPENDENT-SEGMENTS`,
/// `EXT-X-PROGRAM-DATE-TIME`…) are skipped, as the RFC asks of clients.
public enum HLSPlaylistParser {
    /// Parses `text`, fetched from `base` (its final address after redirects).
    ///
    /// - Throws: `.invalid` for text that is no playlist, `.live` for a media playlist without
    ///   `EXT-X-ENDLIST`, `.protected` for SAMPLE-AES and DRM key formats.
    public static func parse(_ text: String, base: String) throws(HLSRefusal) -> HLSPlaylist {
        var lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        guard lines.first == "#EXTM3U" else { throw .invalid("it does not start with #EXTM3U") }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-STREAM-INF") }) {
            return .master(try variants(lines.dropFirst(), base: base))
        }
        return .media(try media(lines.dropFirst(), base: base))
    }

    // MARK: Master playlists

    private static func variants(_ lines: ArraySlice<String>, base: String) throws(HLSRefusal) -> [StreamVariant] {
        var result: [StreamVariant] = []
        /// Each variant's `AUDIO` group, by index.
        var groups: [String?] = []
        var renditions: [AudioRendition] = []
        var pending: [String: String]?
        for line in lines {
            if let value = tagValue(line, "#EXT-X-MEDIA") {
                if let rendition = try audioRendition(attributes(value), base: base) { renditions.append(rendition) }
            } else if let value = tagValue(line, "#EXT-X-STREAM-INF") {
                pending = attributes(value)
            } else if !line.hasPrefix("#"), let attributes = pending {
                pending = nil
                guard let url = RelativeLink.resolve(line, against: base) else {
                    throw .invalid("the variant link “\(line)” is not an http(s) address")
                }
                guard let bandwidth = attributes["BANDWIDTH"].flatMap({ Int($0) }), bandwidth > 0 else {
                    throw .invalid("a variant has no BANDWIDTH")
                }
                var variant = StreamVariant(url: url, bandwidth: bandwidth)
                variant.codecs = (attributes["CODECS"] ?? "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if let resolution = attributes["RESOLUTION"] {
                    let parts = resolution.lowercased().split(separator: "x").compactMap { Int($0) }
                    guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                        throw .invalid("the RESOLUTION “\(resolution)” is not WIDTHxHEIGHT")
                    }
                    variant.width = parts[0]
                    variant.height = parts[1]
                }
                result.append(variant)
                groups.append(attributes["AUDIO"])
            }
        }
        guard !result.isEmpty else { throw .invalid("its variants have no links") }
        // EXT-X-MEDIA may come after the variants that name its group. A group that is not
        // there leaves the variant its own audio.
        for index in result.indices {
            guard let group = groups[index] else { continue }
            result[index].audio = renditions.filter { $0.group == group }
        }
        return result
    }

    /// An `EXT-X-MEDIA` of `TYPE=AUDIO`; nil for the other types (subtitles, captions, video angles).
    private static func audioRendition(_ attributes: [String: String], base: String) throws(HLSRefusal) -> AudioRendition? {
        guard attributes["TYPE"] == "AUDIO" else { return nil }
        guard let group = attributes["GROUP-ID"], !group.isEmpty, let name = attributes["NAME"] else {
            throw .invalid("an audio EXT-X-MEDIA has no GROUP-ID or NAME")
        }
        var rendition = AudioRendition(group: group, name: name, language: attributes["LANGUAGE"],
                                     isDefault: attributes["DEFAULT"] == "YES", autoselect: attributes["AUTOSELECT"] == "YES")
        if let uri = attributes["URI"] {
            guard let url = RelativeLink.resolve(uri, against: base) else {
                throw .invalid("the audio rendition link “\(uri)” is not an http(s) address")
            }
            rendition.url = url
        }
        return rendition
    }

    // MARK: Media playlists

    private static func media(_ lines: ArraySlice<String>, base: String) throws(HLSRefusal) -> StreamTrack {
        var track = StreamTrack(segments: [])
        var sequence = 0
        var complete = false
        var duration: Double?
        var range: ByteSpan?
        /// Where the last byte range ended, per resource: a range without `@offset` follows it.
        var rangeEnd: [String: Int64] = [:]
        var key: (url: String, iv: [UInt8]?)?
        var map: InitSection?
        for line in lines {
            if let value = tagValue(line, "#EXTINF") {
                let number = value.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces)
                guard let seconds = Double(number), seconds.isFinite, seconds >= 0 else {
                    throw .invalid("the segment duration “\(number)” is not a number")
                }
                duration = seconds
            } else if let value = tagValue(line, "#EXT-X-MEDIA-SEQUENCE") {
                guard let number = Int(value), number >= 0 else {
                    throw .invalid("the media sequence “\(value)” is not a number")
                }
                guard track.segments.isEmpty else { throw .invalid("EXT-X-MEDIA-SEQUENCE comes after a segment") }
                sequence = number
            } else if let value = tagValue(line, "#EXT-X-BYTERANGE") {
                range = try byteRange(value)
            } else if let value = tagValue(line, "#EXT-X-KEY") {
                key = try self.key(attributes(value), base: base)
            } else if let value = tagValue(line, "#EXT-X-MAP") {
                let attributes = attributes(value)
                guard let uri = attributes["URI"], let url = RelativeLink.resolve(uri, against: base) else {
                    throw .invalid("EXT-X-MAP has no usable URI")
                }
                var section = InitSection(url: url)
                if let text = attributes["BYTERANGE"] {
                    let parsed = try byteRange(text)
                    guard parsed.offset >= 0 else { throw .invalid("the EXT-X-MAP BYTERANGE has no offset") }
                    section.range = parsed
                }
                if let key, let iv = key.iv { section.key = SegmentKey(url: key.url, iv: iv) }
                map = section
            } else if line == "#EXT-X-ENDLIST" {
                complete = true
            } else if !line.hasPrefix("#") {
                guard let seconds = duration else { throw .invalid("the segment “\(line)” has no EXTINF") }
                guard let url = RelativeLink.resolve(line, against: base) else {
                    throw .invalid("the segment link “\(line)” is not an http(s) address")
                }
                let number = sequence + track.segments.count
                var segment = StreamSegment(url: url, duration: seconds)
                if var part = range {
                    if part.offset < 0 {
                        guard let end = rangeEnd[url] else {
                            throw .invalid("a BYTERANGE without offset follows no range of the same resource")
                        }
                        part.offset = end
                    }
                    rangeEnd[url] = part.offset + part.length
                    segment.range = part
                }
                if let key { segment.key = SegmentKey(url: key.url, iv: key.iv ?? sequenceIV(number)) }
                track.append(segment, section: map)
                duration = nil
                range = nil
            }
        }
        guard !track.segments.isEmpty else { throw .invalid("it lists no segments") }
        guard complete else { throw .live }
        return track
    }

    /// `length[@offset]`; a missing offset is -1 (the caller continues the previous range).
    private static func byteRange(_ text: String) throws(HLSRefusal) -> ByteSpan {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let length = Int64(parts[0]), length > 0,
              let offset = parts.count == 2 ? Int64(parts[1]) : -1, parts.count == 1 || offset >= 0 else {
            throw .invalid("the byte range “\(text)” is not LENGTH@OFFSET")
        }
        return ByteSpan(offset: offset, length: length)
    }

    /// The key in force from here on: nil for METHOD=NONE.
    private static func key(_ attributes: [String: String], base: String) throws(HLSRefusal) -> (url: String, iv: [UInt8]?)? {
        guard let method = attributes["METHOD"] else { throw .invalid("EXT-X-KEY has no METHOD") }
        if method == "NONE" { return nil }
        if let format = attributes["KEYFORMAT"], format != "identity" { throw .protected(format) }
        guard method == "AES-128" else { throw .protected(method) }
        guard let uri = attributes["URI"], let url = RelativeLink.resolve(uri, against: base) else {
            throw .invalid("EXT-X-KEY has no usable URI")
        }
        guard let text = attributes["IV"] else { return (url, nil) }
        guard let iv = hexBytes(text), iv.count == 16 else { throw .invalid("the IV “\(text)” is not 128 bits in hex") }
        return (url, iv)
    }

    /// The IV of a key without `IV`: the media sequence number as a 128-bit big-endian integer.
    static func sequenceIV(_ sequence: Int) -> [UInt8] {
        (0..<16).map { index in index < 8 ? 0 : UInt8(truncatingIfNeeded: UInt64(sequence) >> (8 * (15 - index))) }
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        var digits = Array(text.dropFirst(2).utf8)
        if digits.count % 2 == 1 { digits.insert(UInt8(ascii: "0"), at: 0) }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        // Leading zero bytes of a shorter number pad it to 16 bytes.
        return bytes.count < 16 ? Array(repeating: 0, count: 16 - bytes.count) + bytes : bytes
    }

    /// The text after `tag:` when `line` is that tag, else nil (`#EXTINF` never matches `#EXTINFX`).
    private static func tagValue(_ line: String, _ tag: String) -> String? {
        guard line.hasPrefix(tag) else { return nil }
        let rest = line.dropFirst(tag.count)
        if rest.isEmpty { return "" }
        guard rest.first == ":" else { return nil }
        return String(rest.dropFirst())
    }

    /// An attribute list (`A=1,B="x,y",C=0x1F`): names to values, quotes removed.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var name = "", value = "", inName = true, quoted = false
        func flush() {
            let key = name.trimmingCharacters(in: .whitespaces)
            if !key.isEmpty { result[key] = quoted ? value : value.trimmingCharacters(in: .whitespaces) }
            name = ""; value = ""; inName = true; quoted = false
        }
        var inQuotes = false
        for character in text {
            if inName {
                if character == "=" { inName = false } else if character == "," { flush() } else { name.append(character) }
            } else if inQuotes {
                if character == "\"" { inQuotes = false } else { value.append(character) }
            } else if character == "\"" {
                inQuotes = true
                quoted = true
            } else if character == "," {
                flush()
            } else {
                value.append(character)
            }
        }
        flush()
        return result
    }
}

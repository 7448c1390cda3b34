import CXML2
import Foundation

/// Reads a DASH manifest (ISO/IEC 23009-1) into a `DASHManifest` with libxml2's streaming
/// reader. Pure: no network, no disk; every link comes out resolved against `base`.
///
/// Hostile input is bounded: the text's size, the counts of Periods, Representations,
/// `S` and `SegmentURL` elements (so memory stays small however long the manifest); a DTD
/// or entity declaration is refused before libxml2 could expand one, and libxml2 reads with
/// `XML_PARSE_NONET` and without `XML_PARSE_NOENT` or `XML_PARSE_DTDLOAD`. The reader frees
/// each node once passed, so no tree of the whole document is ever built.
public enum DASHManifestParser {
    /// Bytes a manifest may have.
    public static let byteLimit = 16 << 20
    /// Elements that each add at least one segment (`S`, `SegmentURL`), over the manifest.
    public static let entryLimit = 100_000
    public static let periodLimit = 1_000
    public static let representationLimit = 10_000

    /// Parses `bytes`, fetched from `base` (its final address after redirects).
    ///
    /// - Throws: `.live` for `type="dynamic"`, `.notXML`, `.notMPD`, `.declarations`,
    ///   `.unsafeLink`, `.tooLarge`, `.invalid`.
    public static func parse(_ bytes: [UInt8], base: String) throws(DASHRefusal) -> DASHManifest {
        guard bytes.count <= byteLimit else { throw .tooLarge("more than \(byteLimit >> 20) MiB") }
        // Refused before libxml2 reads a declaration: nothing declared is ever expanded.
        if contains(bytes, "<!DOCTYPE") || contains(bytes, "<!ENTITY") { throw .declarations }
        guard !bytes.isEmpty else { throw .notXML("it is empty") }
        var state = DASHParseState(base: base)
        var kept = fp_xml_error()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                            | XML_PARSE_NOCDATA.rawValue)
        let result: Result<Void, DASHRefusal> = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                guard let reader = xmlReaderForMemory(text, Int32(buffer.count), nil, nil, options) else {
                    return .failure(.notXML("libxml2 could not start"))
                }
                defer { xmlFreeTextReader(reader) }
                withUnsafeMutablePointer(to: &kept) { fp_xml_reader_keep_errors(reader, $0) }
                do throws(DASHRefusal) {
                    try read(reader, into: &state)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        if case .failure(let refusal) = result {
            // libxml2's own words for an error it stopped at.
            if case .notXML = refusal, kept.code != 0 { throw .notXML(libxmlMessage(kept)) }
            throw refusal
        }
        return try state.finish()
    }

    /// The one gate from a libxml2 error to words: its message, trimmed, and its line.
    private static func libxmlMessage(_ error: fp_xml_error) -> String {
        var copy = error
        let text = withUnsafeBytes(of: &copy.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }.trimmingCharacters(in: .whitespacesAndNewlines)
        return "line \(error.line): " + (text.isEmpty ? "libxml2 error \(error.code)" : text)
    }

    private static func contains(_ bytes: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return false }
        var index = 0
        while let start = bytes[index...].firstIndex(of: pattern[0]), start + pattern.count <= bytes.count {
            if bytes[start..<(start + pattern.count)].elementsEqual(pattern) { return true }
            index = start + 1
        }
        return false
    }

    /// Walks the reader's nodes, handing elements and BaseURL text to `state`.
    private static func read(_ reader: xmlTextReaderPtr, into state: inout DASHParseState) throws(DASHRefusal) {
        while true {
            let step = xmlTextReaderRead(reader)
            if step == 0 { break }
            guard step == 1 else { throw .notXML("libxml2 stopped") }
            let type = xmlTextReaderNodeType(reader)
            switch type {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = string(xmlTextReaderConstLocalName(reader))
                let empty = xmlTextReaderIsEmptyElement(reader) == 1
                var attributes: [String: String] = [:]
                if xmlTextReaderMoveToFirstAttribute(reader) == 1 {
                    repeat {
                        // Namespace declarations are no attributes of the manifest's.
                        let qualified = string(xmlTextReaderConstName(reader))
                        if qualified != "xmlns", !qualified.hasPrefix("xmlns:") {
                            attributes[string(xmlTextReaderConstLocalName(reader))] = string(xmlTextReaderConstValue(reader))
                        }
                    } while xmlTextReaderMoveToNextAttribute(reader) == 1
                    xmlTextReaderMoveToElement(reader)
                }
                try state.open(name, attributes)
                if empty { try state.close() }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                try state.close()
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
                 Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
                state.text(string(xmlTextReaderConstValue(reader)))
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue), Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue),
                 Int32(XML_READER_TYPE_ENTITY.rawValue):
                throw .declarations
            default:
                break
            }
        }
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}

import CXML2

/// A web page read by libxml2's HTML parser, as the flat list of elements a scanner needs.
///
/// The parser recovers from any HTML (unclosed tags, stray bytes, a wrong charset), never
/// touches the network (`HTML_PARSE_NONET`), and knows only HTML's own named entities: nothing
/// a page declares is expanded. The charset is the header's when it names one, else libxml2's
/// own reading of the page (a byte order mark, `<meta charset>` or `http-equiv`), else
/// Windows-1252 as browsers assume. This is the only place that walks libxml2's HTML tree.
struct HTMLPage {
    /// One element, in document order: its lower-case name, its attributes (lower-case names,
    /// values as the page decoded them), and its text for the few whose text a scanner reads.
    struct Element {
        var name: String
        var attributes: [String: String]
        /// `<title>`'s and `<script>`'s text; empty for every other element.
        var text: String
        /// The index of the nearest enclosing `<video>` or `<audio>`, for its `<source>`s.
        var mediaParent: Int?

        subscript(attribute: String) -> String? { attributes[attribute] }
    }

    /// Elements at most: a page of more is read as its first ones.
    static let elementLimit = 100_000

    private(set) var elements: [Element] = []

    /// Elements whose text is kept.
    private static let textElements: Set<String> = ["title", "script"]

    /// Parses `bytes`; `charset` is the one the `Content-Type` header named, if any. A page that
    /// gives libxml2 nothing to parse has no elements.
    init(_ bytes: [UInt8], charset: String?) {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return }
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
                            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NOBLANKS.rawValue)
        let encoding = charset.flatMap { xmlFindCharEncodingHandler($0) != nil ? $0 : nil }
        let document: htmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                htmlReadMemory(text, Int32(buffer.count), nil, encoding, options)
            }
        }
        guard let document else { return }
        defer { xmlFreeDoc(document) }
        walk(xmlDocGetRootElement(document))
    }

    /// Visits the tree in document order without recursion (a page may nest deeply).
    private mutating func walk(_ root: xmlNodePtr?) {
        var stack: [(node: xmlNodePtr, mediaParent: Int?)] = []
        if let root { stack.append((root, nil)) }
        while let (node, mediaParent) = stack.popLast(), elements.count < Self.elementLimit {
            var inner = mediaParent
            if node.pointee.type == XML_ELEMENT_NODE {
                let name = Self.string(node.pointee.name).lowercased()
                var attributes: [String: String] = [:]
                var property = node.pointee.properties
                while let attribute = property {
                    let key = Self.string(attribute.pointee.name).lowercased()
                    if attributes[key] == nil { attributes[key] = Self.content(of: attribute.pointee.children) }
                    property = attribute.pointee.next
                }
                let text = Self.textElements.contains(name) ? Self.content(of: node.pointee.children) : ""
                elements.append(Element(name: name, attributes: attributes, text: text, mediaParent: mediaParent))
                if name == "video" || name == "audio" { inner = elements.count - 1 }
            }
            // Children go on the stack last first, so the first is visited next.
            var children: [xmlNodePtr] = []
            var child = node.pointee.children
            while let next = child {
                if next.pointee.type == XML_ELEMENT_NODE { children.append(next) }
                child = next.pointee.next
            }
            stack.append(contentsOf: children.reversed().map { ($0, inner) })
        }
    }

    /// The text of a node list (an attribute's value, a script's or title's text).
    private static func content(of first: xmlNodePtr?) -> String {
        var text = ""
        var node = first
        while let current = node {
            if current.pointee.type == XML_TEXT_NODE || current.pointee.type == XML_CDATA_SECTION_NODE {
                text += string(current.pointee.content)
            }
            node = current.pointee.next
        }
        return text
    }

    private static func string(_ text: UnsafePointer<xmlChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text)
    }

    private static func string(_ text: UnsafeMutablePointer<xmlChar>?) -> String {
        string(UnsafePointer(text))
    }
}

import Foundation

/// The `VideoObject`s in a page's JSON-LD (schema.org), wherever they are: at the top, in a
/// `@graph`, in an array, or inside another object (an article's `video`). The JSON is a page's
/// and so hostile: only strings of the expected fields are read, and nesting is bounded.
enum JSONLDVideos {
    struct Object: Equatable {
        var name: String?
        var contentURL: String?
        var embedURL: String?
        var duration: Double?
        var thumbnail: String?
    }

    /// Levels of nesting read at most.
    static let depthLimit = 32
    /// Objects found at most.
    static let limit = PageScanner.videoLimit

    static func find(in json: Any) -> [Object] {
        var found: [Object] = []
        var stack: [(value: Any, depth: Int)] = [(json, 0)]
        while let (value, depth) = stack.popLast(), found.count < limit {
            guard depth < depthLimit else { continue }
            if let array = value as? [Any] {
                stack.append(contentsOf: array.reversed().map { ($0, depth + 1) })
            } else if let object = value as? [String: Any] {
                if isVideo(object) { found.append(read(object)) }
                // Nested objects in a stable order (a dictionary has none): what a page writes first
                // comes first when it is the graph or a list.
                for key in object.keys.sorted().reversed() where key != "thumbnailUrl" {
                    if let inner = object[key], inner is [Any] || inner is [String: Any] { stack.append((inner, depth + 1)) }
                }
            }
        }
        return found
    }

    private static func isVideo(_ object: [String: Any]) -> Bool {
        switch object["@type"] {
        case let type as String: return type == "VideoObject"
        case let types as [Any]: return types.contains { ($0 as? String) == "VideoObject" }
        default: return false
        }
    }

    private static func read(_ object: [String: Any]) -> Object {
        Object(name: object["name"] as? String, contentURL: object["contentUrl"] as? String,
               embedURL: object["embedUrl"] as? String, duration: (object["duration"] as? String).flatMap(seconds),
               thumbnail: thumbnail(object["thumbnailUrl"]))
    }

    private static func thumbnail(_ value: Any?) -> String? {
        switch value {
        case let link as String: return link
        case let links as [Any]: return links.first.flatMap(thumbnail)
        case let object as [String: Any]: return object["url"] as? String
        default: return nil
        }
    }

    /// An ISO 8601 duration (`PT1H2M3.5S`, `P0DT40M`) in seconds; nil when it is not one.
    static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        guard rest.hasPrefix("P") else { return nil }
        rest.removeFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var any = false
        for character in rest {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".", ",": number.append(character == "," ? "." : character)
            case "D", "H", "M", "S", "W", "Y":
                guard let value = Double(number) else { return nil }
                let unit: Double
                switch (character, inTime) {
                case ("W", false): unit = 604_800
                case ("D", false): unit = 86_400
                case ("H", true): unit = 3_600
                case ("M", true): unit = 60
                case ("S", true): unit = 1
                default: return nil   // years and months have no fixed length: no video is that long
                }
                total += value * unit
                number = ""
                any = true
            default:
                return nil
            }
        }
        return any && number.isEmpty && total.isFinite ? total : nil
    }
}

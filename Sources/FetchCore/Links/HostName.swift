import CPSL

/// What the first part of text typed without `scheme://` is: a host on this machine or its
/// network (`localhost`, an IP address), a name on the public web (`example.com`,
/// `www.example.co.uk`: a public suffix after a dot), or nothing a browser would go to
/// (`video.mp4`, `clips`).
enum HostName {
    case local, `public`

    init?(_ host: String) {
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        if host.lowercased() == "localhost" || (labels.count > 1 && labels.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            self = .local
            return
        }
        // A label before a known suffix; without the `*` rule, which makes every ending one.
        guard labels.count > 1, let list = Self.list else { return nil }
        let flags = PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE
        let known = (1..<labels.count).contains { start in
            psl_is_public_suffix2(list, labels[start...].joined(separator: "."), flags) != 0
        }
        guard known else { return nil }
        self = .public
    }

    /// Whether `domain` (lower case; one final dot is the root's) is a public suffix (`com`,
    /// `co.uk`, `github.io`): names under it belong to different people, so nothing set for it
    /// may go to all of them. Without the `*` rule, which makes every unknown ending one.
    static func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.hasSuffix(".") ? String(domain.dropLast()) : domain
        guard !domain.isEmpty, let list = Self.list else { return false }
        return psl_is_public_suffix2(list, domain, PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE) != 0
    }

    /// Whether `host` (lower case) is spelled as a host can be: labels that are not empty, of
    /// letters, digits, `-` and `_` (or UTF-8, an IDN before its punycode), or an IPv6 literal
    /// in brackets. A `%`, a space or a control character in a host is refused rather than
    /// decoded: libcurl decodes it differently on a second reading, and no DNS name holds one.
    static func isSpelledAsHost(_ host: String) -> Bool {
        if host.hasPrefix("["), host.hasSuffix("]"), host.count > 2 {
            return host.dropFirst().dropLast().utf8.allSatisfy { literalBytes.contains($0) }
        }
        // One final dot is the root's (`example.org.`), as browsers take it.
        let host = host.hasSuffix(".") ? String(host.dropLast()) : host
        return host.utf8.count <= 253 && !host.isEmpty
            && host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
            && host.utf8.allSatisfy { $0 >= 0x80 || labelBytes.contains($0) }
    }

    private static let labelBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
    private static let literalBytes = Set("0123456789abcdef:.".utf8)

    /// The newer of libpsl's built-in list and the system's (Debian's `publicsuffix`), read once.
    nonisolated(unsafe) fileprivate static let list: OpaquePointer? = psl_latest(nil) ?? psl_builtin()
}

extension HostName {
    /// The site `host` (lower case) belongs to: its registrable domain, one label under its
    /// public suffix (`www.example.co.uk` → `example.co.uk`), or the host itself when it has
    /// none (`localhost`, an address, a suffix itself). Pages on one site may embed each other.
    static func site(of host: String) -> String {
        guard let list else { return host }
        // The answer points into the string it was given, so it is read while that lives.
        return host.withCString { text in
            psl_registrable_domain(list, text).map { String(cString: $0) } ?? host
        }
    }
}

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

    /// The newer of libpsl's built-in list and the system's (Debian's `publicsuffix`), read once.
    nonisolated(unsafe) private static let list: OpaquePointer? = psl_latest(nil) ?? psl_builtin()
}

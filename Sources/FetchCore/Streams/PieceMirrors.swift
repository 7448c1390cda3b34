import ThreadKit

/// Where a presentation's pieces can be fetched: their own links, then the same resources at
/// the other places their tracks name (a DASH manifest's other BaseURLs, `StreamMirror`). Once
/// another place answered for a piece whose own failed, the pieces it holds are asked of it
/// first for the rest of the run. Shared by the pool's threads.
final class PieceMirrors: Sendable {
    private let rules: [StreamMirror]
    /// Per rule's `from`: the `to` that answered last.
    private let chosen = Locked<[String: String]>([:])

    init(_ tracks: [StreamTrack]) {
        var rules: [StreamMirror] = []
        for rule in tracks.flatMap({ $0.mirrors ?? [] }) where !rules.contains(rule) { rules.append(rule) }
        self.rules = rules
    }

    /// `url` and the other places of its resource, the one that answered last first.
    func links(for url: String) -> [String] {
        guard !rules.isEmpty else { return [url] }
        let chosen = chosen.withLock { $0 }
        var links = [url]
        var preferred: String?
        for rule in rules {
            guard let other = rule.link(for: url), !links.contains(other) else { continue }
            links.append(other)
            if preferred == nil, chosen[rule.from] == rule.to { preferred = other }
        }
        if let preferred { links.removeAll { $0 == preferred }; links.insert(preferred, at: 0) }
        return links
    }

    /// Notes that `link`, one of `url`'s places, answered: the rules for `url` prefer it (or,
    /// when it is `url` itself, prefer none again).
    func answered(_ link: String, for url: String) {
        guard !rules.isEmpty else { return }
        chosen.withLock { chosen in
            for rule in rules {
                guard let other = rule.link(for: url) else { continue }
                if other == link { chosen[rule.from] = rule.to } else if link == url { chosen[rule.from] = nil }
            }
        }
    }
}

extension DownloadError {
    /// The host failed rather than the resource (it refused the connection, could not be found
    /// or reached, dropped it, or answered 5xx): the same resource elsewhere is worth asking.
    var isHostFailure: Bool {
        switch self {
        case .hostNotFound, .connectionRefused, .stalled, .connectionLost, .tls: true
        case .httpStatus(let code, _): (500...599).contains(code)
        default: false
        }
    }
}

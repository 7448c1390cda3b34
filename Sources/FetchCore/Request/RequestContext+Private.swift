import Localization

/// A context from a private window (`isPrivate`): it lives in the memory of the process it was
/// given to and nowhere else, so it is left out of the encoding that keeps contexts on disk.
extension RequestContext {
    /// Every stored property but `isPrivate`: a private context is never written, so no kept
    /// file carries the flag, and one read back (or one kept before the flag) is not private.
    /// A property added to `RequestContext` must be added here to be kept.
    enum CodingKeys: String, CodingKey {
        case headers, cookieHeader, cookies, referer, userAgent, proxy, source, suggestedName, page, site, audioOnly
    }

    /// `summary`, then for a private one that it is not kept: what the window says of it.
    public var shownSummary: String {
        guard isPrivate else { return summary }
        return [summary, tr("From a private window: kept until Fetchplay quits, never written to disk.")]
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}

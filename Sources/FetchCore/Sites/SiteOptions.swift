/// How a download asks site support (yt-dlp) about a page the scanner finds nothing on.
public struct SiteOptions: Sendable {
    /// The yt-dlp to run; nil: the one `SiteSupport.locate` finds when asked (installed after
    /// the app started counts) if `looksForInstalled`, else none.
    public var program: String?
    /// Whether an installed yt-dlp is looked for when `program` is nil (tests that must not
    /// depend on the machine's say no).
    public var looksForInstalled = true
    /// Where its private files go; nil: the cache's `sites` folder.
    public var scratch: String?
    /// Seconds yt-dlp may take for one page.
    public var timeLimit = SiteExtraction.defaultTimeLimit

    public init() {}

    /// The yt-dlp to run now, if any.
    var located: String? { program ?? (looksForInstalled ? SiteSupport.locate()?.program : nil) }
}

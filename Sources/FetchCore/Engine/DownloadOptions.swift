/// Limits of one download; the defaults suit people, tests shorten them.
public struct DownloadOptions: Sendable {
    /// Attempts in a row without new bytes before the task fails (the first one not counted).
    public var maxRetries = 5
    /// Seconds before the first retry; doubles up to `maxBackoff`.
    public var initialBackoff = 0.5
    public var maxBackoff = 8.0
    /// Seconds without a single byte before a connection counts as stalled.
    public var stallSeconds = 30
    /// Seconds to wait for a connection.
    public var connectTimeoutSeconds = 15
    /// Seconds between checkpoints (fsync, then the record): what a power cut can lose.
    public var checkpointInterval = 1.0
    /// Seconds between progress events (about 30 a second).
    public var progressInterval = 1.0 / 30
    public var maxRedirects = 10
    /// A file of certificate authorities (PEM) that https answers are verified against instead
    /// of the system's bundle (`--ca-certificate`): a company's own CA, or a test's. Nil: the
    /// system's. Verification itself is never turned off.
    public var certificateAuthorities: String?
    /// Connections at once for one download (and per host across downloads), when the server
    /// honours ranges of a file with a length and a strong validator; 1: one connection. With
    /// `growConnections` the ceiling, else how many open at once.
    public var connections = 8
    /// Connections that adapt: four at once (fewer when `connections` is lower), doubled while
    /// those added raised the total rate (a host limiting each connection), up to
    /// `connections` (`ConnectionGrowth`). False (an explicit `--connections N`): `connections`
    /// open at once, as aria2c does.
    public var growConnections = true
    /// Where `connections` is read from at the start of each run instead, when set: the app's
    /// setting, changed at any time (the next run follows).
    public var connectionCeiling: ConnectionCeiling?
    /// A speed limit shared by every download made with these options, all their connections
    /// together: the global limit (one object for the whole app; set its rate at any time).
    /// Each download has a limit of its own besides (`DownloadQueue.speedLimit(for:)`).
    public var speedLimit: SpeedLimit?
    /// What every request of the download carries besides the link (cookies, Referer,
    /// User-Agent, headers, proxy): given with the download, or the one kept with its partial.
    public var context = RequestContext()
    /// The link the person gave (or the browser handed over), whose host the context's
    /// host-bound parts belong to (`RequestContext.fields`); nil: each request's own first URL,
    /// which for a file is that link. A presentation sets it, so that its playlists, keys, init
    /// sections and segments, each requested on its own, never count as the origin themselves.
    public var origin: String?
    /// A presentation or a web page read over https, its link's own scheme whatever it was (an
    /// http link redirected there): nothing of the context goes to a plain-http resource it names.
    var readOverHTTPS = false
    /// The app's proxy, shared by every download made with these options; change it at any time
    /// (the next request follows). A context's own proxy goes before it.
    public var proxy = ProxyPreference()
    /// How presentations (HLS, DASH) are saved: the remux, and the quality when a download
    /// chooses none.
    public var presentations = PresentationSaving()
    /// How site support (yt-dlp) is asked about pages the scanner cannot read.
    public var sites = SiteOptions()
    /// Only the best audio is saved, as it is (`--audio-only`, the choosers' switch): a site's
    /// audio format, a presentation's audio rendition or Representation, or the audio track
    /// copied out of a finished file. A download's context may ask it too
    /// (`RequestContext.audioOnly`).
    public var audioOnly = false

    public init() {}
}

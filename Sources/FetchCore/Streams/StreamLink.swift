import ThreadKit
/// What a link to a presentation offers before it is downloaded: its variants, and whether its
/// name says it is one.
public enum StreamLink {
    /// The variants of the master playlist or DASH manifest at `text`, best first (tallest,
    /// then highest `BANDWIDTH`), for a person to choose from; empty when the link is a media
    /// playlist (there is nothing to choose), or when `stop` was raised. Blocks: never on the
    /// main thread.
    ///
    /// - Throws: the link's or the network's error, `.refusedStream` for a playlist that is not valid.
    /// - Parameter stop: raised, ends the read (and its retries).
    public static func variants(at text: String, options: DownloadOptions = .init(),
                                stop: StopSignal = StopSignal()) throws(DownloadError) -> [StreamVariant] {
        let url = try WebAddress.validate(text)
        guard let answer = try RunHalt.unlessStopped({ () throws(RunHalt) in try ResourceFetch(options: options, stop: stop).get(url) })
        else { return [] }
        if DASHSource.isManifest(answer, link: url) { return DASHChoice.variants(try DASHSource.parse(answer), url: url) }
        guard case .master(let variants) = try PresentationRun.parse(answer) else { return [] }
        return variants.offered.sorted { ($0.height ?? 0, $0.bandwidth) > ($1.height ?? 0, $1.bandwidth) }
    }

    /// What a download of `url` is called before its answer names it, as its record will be:
    /// the link's last path segment, decoded (a playlist's or manifest's without its extension,
    /// since what is saved is a video: `index.m3u8` → `index`), else its host.
    public static func title(of url: String) -> String {
        var name = DisplayName.fromURL(url)
        if let ext = VideoName.fileExtension(of: name), playlistExtensions.contains(ext) {
            name.removeLast(ext.count + 1)
        }
        return name
    }

    /// The extensions that name an HLS playlist or a DASH manifest, lowercased.
    static let playlistExtensions: Set<String> = ["m3u8", "m3u", "mpd"]

    /// Whether a link names a playlist or a DASH manifest by its extension (`.m3u8`, `.m3u`,
    /// `.mpd`), so it is saved as a presentation without a first request for a file.
    public static func isPlaylistLink(_ text: String) -> Bool {
        guard let url = try? WebAddress.validate(text), let name = WebAddress.lastPathSegment(of: url) else { return false }
        return VideoName.fileExtension(of: name).map(playlistExtensions.contains) ?? false
    }
}

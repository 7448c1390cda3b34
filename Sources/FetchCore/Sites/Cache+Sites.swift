extension Cache {
    /// Site support's private files while yt-dlp runs (`SiteExtraction`): 0700, each file 0600
    /// and gone when it ends.
    var sitesDirectory: String { root + "/sites" }
}

/// What a person chooses in Preferences, stored by `SettingsStore` in `settings.ini`.
public struct AppSettings: Sendable, Equatable {
    /// How many downloads may run at once, as Preferences offers it.
    public static let maxRunningRange = 1...10
    /// Connections one download may open at once, as Preferences offers it.
    public static let connectionsRange = 1...16

    /// Where finished videos go; nil for the default (the videos folder's `Fetchplay`).
    public var videosFolder: String?
    /// Downloads that run at once (`maxRunningRange`); the rest wait in order.
    public var maxRunning: Int
    /// The most connections one download opens (`connectionsRange`): it starts with four and
    /// opens more while they raise its rate, up to this.
    public var connections = 8
    /// KiB per second; nil for no limit.
    public var speedLimit: Int?
    /// Bytes the library may hold; nil for no cap.
    public var sizeCap: Int64?
    /// Whether the computer is kept from suspending while a download runs.
    public var keepAwake: Bool
    /// The proxy downloads go through: the desktop's (default), none, or one given by hand.
    public var proxy: ProxySetting = .desktop
    /// Which yt-dlp releases the managed site support follows.
    public var siteSupportChannel: SiteSupport.Channel = .stable

    public init(videosFolder: String? = nil, maxRunning: Int = 3, speedLimit: Int? = nil,
                sizeCap: Int64? = nil, keepAwake: Bool = true) {
        self.videosFolder = videosFolder
        self.maxRunning = maxRunning
        self.speedLimit = speedLimit
        self.sizeCap = sizeCap
        self.keepAwake = keepAwake
    }

    /// The settings with every value brought into its range: downloads at once clamped, a speed
    /// limit or a size cap of 0 or less meaning none, an empty or relative folder the default.
    public var sanitized: AppSettings {
        var settings = self
        settings.maxRunning = min(max(maxRunning, Self.maxRunningRange.lowerBound), Self.maxRunningRange.upperBound)
        settings.connections = min(max(connections, Self.connectionsRange.lowerBound), Self.connectionsRange.upperBound)
        if let limit = speedLimit, limit <= 0 { settings.speedLimit = nil }
        if let cap = sizeCap, cap <= 0 { settings.sizeCap = nil }
        if let folder = videosFolder, !folder.hasPrefix("/") { settings.videosFolder = nil }
        return settings
    }

    /// The part the library and the download queue use today.
    public var library: LibrarySettings { LibrarySettings(maxRunning: maxRunning, sizeCap: sizeCap) }
}

/// Where a viewer of an HLS or DASH presentation asked to watch from: the time, and the track
/// whose segment was asked for (nil: every track, as when someone waits to play from a time).
struct WantedTime: Equatable, Sendable {
    let seconds: Double
    let track: Int?
}

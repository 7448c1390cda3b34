// HLS: a `.m3u8` link read into the stream model (`StreamTrack`, `StreamVariant`).
//
//   HLSPlaylist          what a playlist says: a master's variants, or a media playlist's track
//   HLSPlaylistParser    the pure parser (RFC 8216 tags Fetchplay needs), table-tested
//   HLSRefusal           why a playlist is not saved, in one sentence
//
// Everything after the track (segments, keys, the remux) is the same for DASH: see `Streams/`.

import Foundation

/// A playlist: either a list of variants of one presentation, or the segments of one of them.
public enum HLSPlaylist: Sendable, Equatable {
    case master([StreamVariant])
    case media(StreamTrack)
}


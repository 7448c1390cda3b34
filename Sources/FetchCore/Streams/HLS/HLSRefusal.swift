import Foundation
import Localization

/// Why an HLS presentation cannot be saved; nothing of it is kept.
public enum HLSRefusal: Error, Sendable, Equatable {
    /// No `EXT-X-ENDLIST`: the playlist grows while it is watched.
    case live
    /// `SAMPLE-AES`, `SAMPLE-AES-CTR` or a key format other than plain `identity` (FairPlay,
    /// Widevine, PlayReady…): DRM.
    case protected(String)
    /// Not a playlist Fetchplay can read, with what is wrong.
    case invalid(String)

    /// One sentence a person can act on.
    public var message: String {
        switch self {
        case .live:
            tr("This link is a live stream (its playlist has no end); Fetchplay saves only complete videos.")
        case .protected(let scheme):
            // TRANSLATORS: %1$@ names the protection: SAMPLE-AES, com.apple.streamingkeydelivery…
            String(format: tr("This video is protected by DRM (%1$@), which Fetchplay cannot save."), scheme)
        case .invalid(let detail):
            // TRANSLATORS: %1$@ says what is wrong with the playlist, in English.
            String(format: tr("This link's HLS playlist is not valid (%1$@); there is no video to save."), detail)
        }
    }
}

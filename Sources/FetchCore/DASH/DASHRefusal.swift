import Foundation
import Localization

/// Why a DASH presentation cannot be saved; nothing of it is kept.
public enum DASHRefusal: Error, Sendable, Equatable {
    /// `type="dynamic"`: the manifest grows while it is watched.
    case live
    /// `ContentProtection` on what would be saved: DRM (Widevine, PlayReady, ClearKey…).
    case protected(String)
    /// Not XML (with libxml2's words), or XML whose root is not `MPD`.
    case notXML(String)
    case notMPD(String)
    /// A DTD or entity declarations: refused before any is expanded (an entity bomb).
    case declarations
    /// A link in it that is not http or https (a `file://` BaseURL).
    case unsafeLink(String)
    /// More segments, Representations or bytes than any real presentation has.
    case tooLarge(String)
    /// A manifest Fetchplay can read but not save, with what is wrong.
    case invalid(String)

    /// One sentence a person can act on.
    public var message: String {
        switch self {
        case .live:
            tr("This link is a live DASH stream (its manifest is dynamic); Fetchplay saves only complete videos.")
        case .protected(let scheme):
            // TRANSLATORS: %1$@ names the protection scheme, such as Widevine or urn:mpeg:dash:mp4protection:2011.
            String(format: tr("This video is protected by DRM (%1$@), which Fetchplay cannot save."), scheme)
        case .notXML(let detail):
            // TRANSLATORS: %1$@ is the XML parser's reason, in English.
            String(format: tr("This link's DASH manifest is not XML (%1$@); there is no video to save."), detail)
        case .notMPD(let root):
            // TRANSLATORS: %1$@ is the name of the document's root element.
            String(format: tr("This link is an XML document (%1$@), not a DASH manifest; there is no video to save."), root)
        case .declarations:
            tr("This link's DASH manifest declares a DTD or entities, which Fetchplay never expands; there is no video to save.")
        case .unsafeLink(let link):
            // TRANSLATORS: %1$@ is the link found in the manifest, such as file:///etc/passwd.
            String(format: tr("This link's DASH manifest points to “%1$@”, which is not an http or https link; nothing was saved."), link)
        case .tooLarge(let detail):
            // TRANSLATORS: %1$@ says what is too large, in English.
            String(format: tr("This link's DASH manifest is too large to save (%1$@)."), detail)
        case .invalid(let detail):
            // TRANSLATORS: %1$@ says what is wrong with the manifest, in English.
            String(format: tr("This link's DASH manifest is not valid (%1$@); there is no video to save."), detail)
        }
    }
}

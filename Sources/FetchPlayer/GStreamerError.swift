import CGStreamer
import GLibSupport
import Localization

/// A GStreamer call that did not do what the player asked: a property the element lacks, a
/// value it cannot take, an element a bin refused, elements that would not link, a buffer a
/// source refused.
///
/// Most are the player's own mistakes (a misspelt property name), yet none ends the process:
/// each is logged where it happens (`logged()`), and where playback cannot go on it reaches the
/// person as `PlayerError.other` with this sentence (`playerError`).
enum GStreamerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `type` (a GObject type name, `GstPlayBin`) has no property `name`.
    case noSuchProperty(type: String, name: String)
    /// The property exists but takes no value of this kind, or cannot be written.
    case wrongValue(type: String, name: String)
    /// `bin` refused `element` (`gst_bin_add`: it has a parent already, or its name is taken).
    case notAdded(element: String, bin: String)
    /// `from` and `to` have no pads that fit (`gst_element_link`, `gst_pad_link`).
    case notLinked(from: String, to: String)
    /// A source refused a buffer (`gst_app_src_push_buffer`); `flow` is GStreamer's name for
    /// the flow return ("eos", "not-linked", "error").
    case bufferRefused(flow: String)

    var description: String {
        switch self {
        case .noSuchProperty(let type, let name):
            // TRANSLATORS: %1$@ is a GStreamer property name (uri), %2$@ an element type (GstPlayBin).
            String(format: tr("GStreamer has no property “%1$@” on %2$@"), name, type)
        case .wrongValue(let type, let name):
            String(format: tr("GStreamer’s property “%1$@” on %2$@ cannot take this value"), name, type)
        case .notAdded(let element, let bin):
            // TRANSLATORS: %1$@ and %2$@ are GStreamer element names.
            String(format: tr("GStreamer could not put %1$@ into %2$@"), element, bin)
        case .notLinked(let from, let to):
            String(format: tr("GStreamer could not link %1$@ to %2$@"), from, to)
        case .bufferRefused(let flow):
            // TRANSLATORS: %1$@ is GStreamer's name for why (eos, not-linked, error).
            String(format: tr("GStreamer refused the video’s bytes (%1$@)"), flow)
        }
    }

    /// The error for the person using the app, where playback cannot go on.
    var playerError: PlayerError { .other(description) }

    /// What `body` returns; its error becomes the `PlayerError` that ends playback.
    static func ending<Value>(_ body: () throws(GStreamerError) -> Value) throws(PlayerError) -> Value {
        do { return try body() } catch { throw error.playerError }
    }

    /// Writes it to the log, and returns it (`throw error.logged()`).
    @discardableResult
    func logged() -> GStreamerError {
        Log.warning(description)
        return self
    }
}

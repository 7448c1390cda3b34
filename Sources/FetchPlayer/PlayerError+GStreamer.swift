import CGLib
import CGStreamer
import GLibSupport
import Localization

// The one gate where GStreamer's errors (a `GError` inside an ERROR message, read through
// `GLibError`, plus the missing-plugin element message that precedes it) become `PlayerError`
// values.

extension PlayerError {
    /// The error an ERROR bus message stands for.
    ///
    /// - Parameters:
    ///   - missingPlugin: the description from a missing-plugin message seen before this error.
    ///   - path: the file being played, to tell "not found" from "cannot read".
    static func from(errorMessage message: UnsafeMutablePointer<GstMessage>,
                     missingPlugin: String?, path: String?) -> PlayerError {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        g_free(debug)
        guard let error else { return .other(tr("unknown error")) }
        return from(GLibError(taking: error), missingPlugin: missingPlugin, path: path)
    }

    /// The error a `GError` from GStreamer stands for.
    static func from(_ error: GLibError, missingPlugin: String?, path: String?) -> PlayerError {
        let domain = error.domain
        let code = Int(error.code)
        let text = error.message.isEmpty ? tr("unknown error") : error.message
        func isCode<E: RawRepresentable>(_ value: E) -> Bool where E.RawValue: BinaryInteger {
            Int(value.rawValue) == code
        }

        if domain == gst_resource_error_quark() {
            if let path, !GStreamer.fileExists(path) { return .fileNotFound(path: path) }
            if isCode(GST_RESOURCE_ERROR_NOT_FOUND) { return .fileNotFound(path: path ?? "") }
            if isCode(GST_RESOURCE_ERROR_OPEN_READ) || isCode(GST_RESOURCE_ERROR_READ)
                || isCode(GST_RESOURCE_ERROR_NOT_AUTHORIZED) || isCode(GST_RESOURCE_ERROR_OPEN_READ_WRITE) {
                return .unreadable(detail: text)
            }
        }
        if (domain == gst_core_error_quark() && isCode(GST_CORE_ERROR_MISSING_PLUGIN))
            || (domain == gst_stream_error_quark() && isCode(GST_STREAM_ERROR_CODEC_NOT_FOUND)) {
            return .missingCodec(missingPlugin ?? text)
        }
        if domain == gst_stream_error_quark() {
            if isCode(GST_STREAM_ERROR_TYPE_NOT_FOUND) || isCode(GST_STREAM_ERROR_WRONG_TYPE) {
                return .notAVideo
            }
            // FAILED is what demuxers post for a file cut short before its first frames.
            if isCode(GST_STREAM_ERROR_DECODE) || isCode(GST_STREAM_ERROR_DEMUX)
                || isCode(GST_STREAM_ERROR_FORMAT) || isCode(GST_STREAM_ERROR_FAILED) {
                return .corrupt(detail: text)
            }
        }
        if let missingPlugin { return .missingCodec(missingPlugin) }
        return .other(text)
    }

    /// The description of a missing-plugin element message ("VP9 decoder"), or nil for any
    /// other message.
    static func missingPluginDescription(_ message: UnsafeMutablePointer<GstMessage>) -> String? {
        guard message.pointee.type == GST_MESSAGE_ELEMENT,
              let structure = gst_message_get_structure(message),
              gst_structure_has_name(structure, "missing-plugin") != 0 else { return nil }
        if let name = gst_structure_get_string(structure, "name") {
            return String(cString: name)
        }
        if let detail = gst_structure_get_value(structure, "detail"), let text = String(glibTaking: gst_value_serialize(detail)) {
            return text
        }
        return tr("unknown plug-in")
    }
}

import CGLib
import CGStreamer
import GLibSupport
import Testing
import TestSupport
@testable import FetchPlayer

/// The one gate from GStreamer errors to `PlayerError`, case by case.
struct PlayerErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        let domain: @Sendable () -> GQuark
        let code: Int32
        let missingPlugin: String?
        let expected: PlayerError
        let description: String
    }

    static let cases: [Case] = [
        Case(domain: gst_stream_error_quark, code: Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue),
             missingPlugin: nil, expected: .notAVideo, description: "type not found"),
        Case(domain: gst_stream_error_quark, code: Int32(GST_STREAM_ERROR_DEMUX.rawValue),
             missingPlugin: nil, expected: .corrupt(detail: "boom"), description: "demux"),
        Case(domain: gst_stream_error_quark, code: Int32(GST_STREAM_ERROR_DECODE.rawValue),
             missingPlugin: nil, expected: .corrupt(detail: "boom"), description: "decode"),
        Case(domain: gst_stream_error_quark, code: Int32(GST_STREAM_ERROR_FAILED.rawValue),
             missingPlugin: nil, expected: .corrupt(detail: "boom"), description: "stream failed"),
        Case(domain: gst_core_error_quark, code: Int32(GST_CORE_ERROR_MISSING_PLUGIN.rawValue),
             missingPlugin: "VP9 decoder", expected: .missingCodec("VP9 decoder"), description: "missing plugin"),
        Case(domain: gst_stream_error_quark, code: Int32(GST_STREAM_ERROR_CODEC_NOT_FOUND.rawValue),
             missingPlugin: nil, expected: .missingCodec("boom"), description: "codec not found"),
        Case(domain: gst_resource_error_quark, code: Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue),
             missingPlugin: nil, expected: .fileNotFound(path: "/nonexistent/v.webm"), description: "not found"),
        Case(domain: gst_library_error_quark, code: Int32(GST_LIBRARY_ERROR_INIT.rawValue),
             missingPlugin: nil, expected: .other("boom"), description: "other"),
    ]

    @Test(arguments: cases)
    func gstreamerErrorsBecomeValues(_ item: Case) {
        GStreamer.initialize()
        let error = GLibError(taking: g_error_new_literal(item.domain(), item.code, "boom")!)
        let path = item.expected == .fileNotFound(path: "/nonexistent/v.webm") ? "/nonexistent/v.webm" : nil
        let value = PlayerError.from(error, missingPlugin: item.missingPlugin, path: path)
        #expect(value == item.expected)
        #expect(value.message.hasSuffix(".") || value.message.hasSuffix("boom"))
    }

    @Test func missingPluginMessagesAreRead() {
        GStreamer.initialize()
        let structure = gst_structure_new_empty("missing-plugin")!
        var name = GValue()
        g_value_init(&name, GType(16 << 2)) // G_TYPE_STRING
        g_value_set_string(&name, "H.265 decoder")
        gst_structure_set_value(structure, "name", &name)
        g_value_unset(&name)
        let message = gst_message_new_element(nil, structure)!
        defer { gst_message_unref(message) }
        #expect(PlayerError.missingPluginDescription(message) == "H.265 decoder")
    }

    @Test func everyErrorHasASentence() {
        let all: [PlayerError] = [.fileNotFound(path: "/a/b.webm"), .notAVideo, .corrupt(detail: "x"),
                                  .missingCodec("VP9 decoder"), .unreadable(detail: "Permission denied"),
                                  .notSubtitles(path: "/a/b.srt"), .notDownloaded, .timedOut, .other("x")]
        for error in all {
            #expect(error.message.first?.isUppercase == true)
            #expect(error.message.count > 20)
        }
        #expect(PlayerError.fileNotFound(path: "/a/b.webm").message.contains("b.webm"))
        #expect(PlayerError.missingCodec("VP9 decoder").message.contains("VP9 decoder"))
        #expect(PlayerError.notSubtitles(path: "/a/b.srt").message.contains("b.srt"))
    }
}

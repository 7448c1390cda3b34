import CGLib
import CGStreamer
import Foundation
import Locking

/// Rewrites a media file into MP4 without re-encoding: `filesrc ! parsebin`, each video and
/// audio stream into `mp4mux faststart=true` (the index first, so playback and seeking start at
/// once), other streams dropped. Used once per HLS download on the joined segments (MPEG-TS or
/// fragmented MP4), whose timestamps then become one file with one duration.
///
/// Blocks the calling thread until done: never call it on the main thread.
public enum Remuxer {
    /// Seconds a remux may take at most (a minute of 1080p takes well under one).
    static let timeLimit = 600

    /// The elements a remux of HLS segments loads (MPEG-TS and fragmented MP4 in, MP4 out).
    static let features = ["filesrc", "parsebin", "typefind", "tsdemux", "qtdemux", "h264parse", "h265parse",
                           "aacparse", "mpegaudioparse", "mp4mux", "queue", "filesink"]

    /// Initialises GStreamer and loads the remux's plug-ins, so the remux that follows a download
    /// does not wait for them (about a tenth of a second, measured). Blocks: call it on a worker
    /// thread while the segments download.
    public static func prepare() { _ = prepared }

    /// Done once per process; a caller arriving while another thread does it waits for it, so a
    /// remux never builds its pipeline while the warm-up still loads plug-ins.
    private static let prepared: Void = {
        GStreamer.initialize()
        for name in features {
            guard let factory = gst_element_factory_find(name) else { continue }
            // Both are final GObject types, imported as opaque pointers.
            if let loaded = gst_plugin_feature_load(factory) { gst_object_unref(UnsafeMutableRawPointer(loaded)) }
            gst_object_unref(UnsafeMutableRawPointer(factory))
        }
    }()

    /// `prepare()` on a thread of its own; returns at once.
    public static func prepareInBackground() {
        let job = BackgroundWork.begin()
        let thread = Thread {
            prepare()
            job?.end()
        }
        thread.name = "fetchplay remux prepare"
        thread.start()
    }

    public static func remux(input: String, output: String) throws(PlayerError) {
        prepare()
        guard GStreamer.fileExists(input) else { throw .fileNotFound(path: input) }
        guard let pipeline = gst_pipeline_new("fetchplay-remux"),
              let source = GStreamer.make("filesrc"), let parser = GStreamer.make("parsebin"),
              let mux = GStreamer.make("mp4mux"), let sink = GStreamer.make("filesink") else {
            throw .missingCodec("parsebin, mp4mux (gstreamer1.0-plugins-base, -good)")
        }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        for element in [source, parser, mux, sink] { gst_bin_add(bin, element) }
        GStreamer.setProperty(source, "location", .string(input))
        GStreamer.setProperty(mux, "faststart", .bool(true))
        GStreamer.setProperty(sink, "location", .string(output))
        guard gst_element_link(source, parser) != 0, gst_element_link(mux, sink) != 0 else {
            throw .other("the remux pipeline does not link")
        }
        // parsebin's pads appear on a streaming thread, one per stream it found.
        let streams = StreamLinker(bin: bin, mux: mux)
        let box = Unmanaged.passRetained(streams).toOpaque()
        let padAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = { _, pad, data in
            guard let pad, let data else { return }
            Unmanaged<StreamLinker>.fromOpaque(data).takeUnretainedValue().link(pad)
        }
        g_signal_connect_data(parser, "pad-added", unsafeBitCast(padAdded, to: GCallback.self), box,
                              { data, _ in Unmanaged<StreamLinker>.fromOpaque(data!).release() }, GConnectFlags(rawValue: 0))
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            throw .other("the remux pipeline does not start")
        }
        guard let bus = gst_element_get_bus(pipeline) else { throw .other("no bus") }
        defer { gst_object_unref(bus) }
        let types = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeLimit) * 1_000_000_000, types) else {
            throw .timedOut
        }
        defer { gst_message_unref(message) }
        if message.pointee.type == GST_MESSAGE_ERROR {
            throw PlayerError.from(errorMessage: message, missingPlugin: nil, path: input)
        }
        guard streams.linked > 0 else { throw .notAVideo }
    }
}

/// Links each stream parsebin finds: video and audio into the muxer, anything else into a
/// fakesink. Runs on GStreamer's streaming threads; `linked` is read after EOS only.
private final class StreamLinker: @unchecked Sendable {
    let bin: UnsafeMutablePointer<GstBin>
    let mux: UnsafeMutablePointer<GstElement>
    private(set) var linked = 0

    init(bin: UnsafeMutablePointer<GstBin>, mux: UnsafeMutablePointer<GstElement>) {
        self.bin = bin
        self.mux = mux
    }

    func link(_ pad: UnsafeMutablePointer<GstPad>) {
        let caps = gst_pad_query_caps(pad, nil)
        defer { if let caps { gst_caps_unref(caps) } }
        var media = ""
        if let caps, gst_caps_get_size(caps) > 0, let structure = gst_caps_get_structure(caps, 0),
           let name = gst_structure_get_name(structure) {
            media = String(cString: name)
        }
        let template = media.hasPrefix("video/") ? "video_%u" : media.hasPrefix("audio/") ? "audio_%u" : nil
        guard let template, let queue = GStreamer.make("queue") else { return discard(pad) }
        gst_bin_add(bin, queue)
        gst_element_sync_state_with_parent(queue)
        guard let sinkPad = gst_element_get_static_pad(queue, "sink") else { return }
        defer { gst_object_unref(sinkPad) }
        guard gst_pad_link(pad, sinkPad) == GST_PAD_LINK_OK,
              let muxPad = gst_element_request_pad_simple(mux, template),
              let queueSource = gst_element_get_static_pad(queue, "src") else { return }
        defer {
            gst_object_unref(muxPad)
            gst_object_unref(queueSource)
        }
        if gst_pad_link(queueSource, muxPad) == GST_PAD_LINK_OK { linked += 1 }
    }

    /// A stream the MP4 does not take (timed metadata, subtitles): consumed and dropped.
    private func discard(_ pad: UnsafeMutablePointer<GstPad>) {
        guard let sink = GStreamer.make("fakesink") else { return }
        GStreamer.setProperty(sink, "sync", .bool(false))
        gst_bin_add(bin, sink)
        gst_element_sync_state_with_parent(sink)
        if let sinkPad = gst_element_get_static_pad(sink, "sink") {
            gst_pad_link(pad, sinkPad)
            gst_object_unref(sinkPad)
        }
    }
}

import CGLib
import CGStreamer
import Foundation
import Locking

/// Rewrites media streams into one MP4 without re-encoding, as their bytes arrive.
///
/// Each input is `appsrc ! parsebin`; the video and audio streams parsebin finds go through a
/// queue into one `mp4mux`, anything else is dropped. Used once per HLS download: the segments
/// are appended in order while later ones still download, so the remux is done about when the
/// last segment is, instead of joining every segment first and reading them all again after.
/// The index (`moov`) goes at the end: writing it first (`faststart`) costs a second copy of
/// the whole file, and a local file seeks as well either way.
///
/// `append` blocks while the remux is behind (each input holds `inputLimit` bytes at most), so
/// a resume that feeds an hour of segments from disk never holds them in memory. Safe from any
/// thread; every call but `cancel` blocks, so never call one on the main thread.
public final class Remuxer: @unchecked Sendable {
    /// Which streams of an input go into the file.
    public enum Input: Sendable, Equatable {
        /// Its video and its audio.
        case videoAndAudio
        /// Its video only: the audio comes from another input.
        case video
        /// Its audio only.
        case audio
    }

    /// Seconds `finish` waits for the last bytes to be written (a minute of 1080p takes well
    /// under one).
    static let timeLimit = 600
    /// Bytes each input's appsrc holds before `append` waits.
    static let inputLimit = 8 << 20
    /// Seconds one stream of an input may run ahead of another of the same input (a
    /// fragment's video before its audio): what each of their queues holds at most.
    static let interleaveLimit = 30

    /// The elements a remux loads (MPEG-TS, fragmented MP4 and packed audio in, MP4 out).
    static let features = ["appsrc", "parsebin", "typefind", "tsdemux", "qtdemux", "h264parse", "h265parse",
                           "aacparse", "mpegaudioparse", "id3demux", "mp4mux", "queue", "filesink"]

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sources: [UnsafeMutablePointer<GstAppSrc>]
    private let linker: StreamLinker
    private let outcome = Locked<Outcome>(Outcome())
    private let done = DispatchSemaphore(value: 0)
    private var watcher: Thread?

    private struct Outcome {
        var error: PlayerError?
        /// The file is whole (EOS reached the sink).
        var written = false
        /// No more bytes are taken: written, failed or cancelled.
        var closed = false
        var ended: Set<Int> = []
    }

    /// Initialises GStreamer and loads the remux's plug-ins, so the remux that follows does not
    /// wait for them (about a tenth of a second, measured). Blocks: call it on a worker thread.
    public static func prepare() {
        GStreamer.initialize()
        for name in features {
            guard let factory = gst_element_factory_find(name) else { continue }
            // Both are final GObject types, imported as opaque pointers.
            if let loaded = gst_plugin_feature_load(factory) { gst_object_unref(UnsafeMutableRawPointer(loaded)) }
            gst_object_unref(UnsafeMutableRawPointer(factory))
        }
    }

    /// `prepare()` on a thread of its own; returns at once. Counted as background work, so the
    /// process never exits while it is inside GObject's type system (a refused HLS link ends
    /// before it; seen under ThreadSanitizer as GObject aborting during exit).
    public static func prepareInBackground() {
        guard let job = BackgroundWork.begin(.skippable) else { return }
        let thread = Thread {
            defer { job.end() }
            prepare()
        }
        thread.name = "fetchplay remux prepare"
        thread.start()
    }

    /// Starts a remux into `output` (created or truncated) of one input per element of `inputs`.
    public init(output: String, inputs: [Input]) throws(PlayerError) {
        GStreamer.initialize()
        guard !inputs.isEmpty, let pipeline = gst_pipeline_new("fetchplay-remux") else { throw .other("no inputs") }
        self.pipeline = pipeline
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let mux = GStreamer.make("mp4mux"), let sink = GStreamer.make("filesink") else {
            gst_object_unref(pipeline)
            throw .missingCodec("mp4mux (gstreamer1.0-plugins-good)")
        }
        linker = StreamLinker(bin: bin, mux: mux, inputs: inputs.count)
        var sources: [UnsafeMutablePointer<GstAppSrc>] = []
        var linked = true
        do throws(GStreamerError) {
            try GStreamer.add(mux, to: bin)
            try GStreamer.add(sink, to: bin)
            try GStreamer.setProperty(sink, "location", .string(output))
            linked = gst_element_link(mux, sink) != 0
            for (index, input) in inputs.enumerated() {
                guard let source = GStreamer.make("appsrc"), let parser = GStreamer.make("parsebin") else {
                    linked = false
                    break
                }
                try GStreamer.add(source, to: bin)
                try GStreamer.add(parser, to: bin)
                try GStreamer.setProperty(source, "max-bytes", .int(Int64(Self.inputLimit)))
                // Without it `append` would queue every segment in memory instead of waiting.
                try GStreamer.setProperty(source, "block", .bool(true))
                linked = linked && gst_element_link(source, parser) != 0
                sources.append(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self))
                linker.watch(parser, input: index, takes: input)
            }
        } catch {
            gst_object_unref(pipeline)
            throw error.playerError
        }
        self.sources = sources
        guard linked, sources.count == inputs.count else {
            gst_object_unref(pipeline)
            throw .missingCodec("appsrc, parsebin, mp4mux (gstreamer1.0-plugins-base, -good)")
        }
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
            throw .other("the remux pipeline does not start")
        }
        let watcher = Thread { [self] in watch() }
        watcher.name = "fetchplay remux"
        self.watcher = watcher
        watcher.start()
    }

    deinit {
        cancel()
        gst_object_unref(pipeline)
    }

    /// Appends the next `count` bytes of input `index`, which `fill` writes straight into the
    /// remux's own buffer; waits while the remux is behind.
    ///
    /// - Throws: what `fill` throws; the remux's error when it failed (then nothing more is
    ///   taken); `.other` after `cancel` or `end`.
    public func append(count: Int, to index: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        guard count > 0 else { return }
        try check(index)
        guard let buffer = gst_buffer_new_allocate(nil, gsize(count), nil) else { throw PlayerError.other("out of memory") }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0, let data = map.data else {
            gst_buffer_unref(buffer)
            throw PlayerError.other("out of memory")
        }
        do {
            try fill(UnsafeMutableRawBufferPointer(start: data, count: count))
        } catch {
            gst_buffer_unmap(buffer, &map)
            gst_buffer_unref(buffer)
            throw error
        }
        gst_buffer_unmap(buffer, &map)
        // Takes the buffer; FLUSHING once the pipeline stopped (an error, a cancel), EOS once
        // the input was ended. Any other refusal ends the remux with it as the error, so that
        // `finish` says so too.
        let flow = gst_app_src_push_buffer(sources[index], buffer)
        guard flow == GST_FLOW_OK else {
            if flow != GST_FLOW_FLUSHING, flow != GST_FLOW_EOS {
                let refused = GStreamerError.bufferRefused(flow: gst_flow_get_name(flow).map { String(cString: $0) } ?? "\(flow.rawValue)")
                refused.logged()
                // Not `closed`: the watcher still waits for the end, which `finish` or `cancel` brings.
                outcome.withLock { $0.error = $0.error ?? refused.playerError }
            }
            try check(index)
            throw PlayerError.other("the remux stopped")
        }
    }

    /// No more bytes for input `index`.
    public func end(_ index: Int) {
        let first = outcome.withLock { $0.ended.insert(index).inserted }
        if first { _ = gst_app_src_end_of_stream(sources[index]) }
    }

    /// Ends every input and waits until the file is written.
    ///
    /// - Throws: GStreamer's error, `.notAVideo` when no input had a video or audio stream,
    ///   `.timedOut` after `timeLimit` seconds, `.other` after `cancel`.
    public func finish() throws(PlayerError) {
        for index in sources.indices { end(index) }
        guard done.wait(timeout: .now() + .seconds(Self.timeLimit)) == .success else {
            cancel()
            throw .timedOut
        }
        done.signal()
        let outcome = outcome.withLock { $0 }
        if let error = outcome.error { throw error }
        guard outcome.written else { throw .other("the remux was cancelled") }
        guard linker.linked > 0 else { throw .notAVideo }
    }

    /// Stops at once, from any thread: `append` and `finish` return, the output stays as far as
    /// it got.
    public func cancel() {
        let first = outcome.withLock { outcome -> Bool in
            defer { outcome.closed = true }
            return !outcome.closed
        }
        // Wakes the watcher, which then leaves. Posted before the pipeline stops: a pipeline
        // going to NULL flushes its bus, and a wake posted after would be dropped (then
        // `finish` waited its whole time limit after a pause).
        if first, let bus = gst_element_get_bus(pipeline) {
            if let wake = gst_message_new_application(nil, gst_structure_new_empty("fetchplay-wake")) { gst_bus_post(bus, wake) }
            gst_object_unref(bus)
        }
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    private func check(_ index: Int) throws(PlayerError) {
        let outcome = outcome.withLock { $0 }
        if let error = outcome.error { throw error }
        if outcome.closed || outcome.ended.contains(index) { throw .other("the remux input is closed") }
    }

    /// Waits on the bus for the end, the first error or a cancel; an error stops the pipeline,
    /// which releases every `append` that waits.
    private func watch() {
        defer { done.signal() }
        guard let bus = gst_element_get_bus(pipeline) else { return }
        defer { gst_object_unref(bus) }
        let types = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue
                                   | GST_MESSAGE_APPLICATION.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, GStreamer.clockTimeNone, types) else { return }
        defer { gst_message_unref(message) }
        let type = message.pointee.type
        guard type == GST_MESSAGE_ERROR || type == GST_MESSAGE_EOS else { return }
        let error = type == GST_MESSAGE_ERROR ? PlayerError.from(errorMessage: message, missingPlugin: nil, path: nil) : nil
        outcome.withLock {
            $0.error = $0.error ?? error
            $0.written = error == nil
            $0.closed = true
        }
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }
}

/// Links each stream parsebin finds: video and audio into the muxer as its input allows,
/// anything else into a fakesink. Runs on GStreamer's streaming threads.
///
/// mp4mux takes no new stream once it has written its first data, and the inputs find their
/// streams at different times (an audio rendition's first segment may come after the video's).
/// So every stream waits at its queue's output until each input has found all of its streams,
/// then all start together. parsebin adds all the streams it found before it lets data through
/// any of them (and posts no `no-more-pads`): the first data out of one of an input's streams
/// says that input is complete.
private final class StreamLinker: @unchecked Sendable {
    let bin: UnsafeMutablePointer<GstBin>
    let mux: UnsafeMutablePointer<GstElement>
    private let state: Locked<State>

    private struct State {
        var linked = 0
        /// Inputs whose streams are all known.
        var complete: Set<Int> = []
        let inputs: Int
        /// Queue outputs held back until then, with their probes.
        var held: [(pad: UnsafeMutablePointer<GstPad>, probe: gulong)] = []
        var isHolding: Bool { complete.count < inputs }
    }

    init(bin: UnsafeMutablePointer<GstBin>, mux: UnsafeMutablePointer<GstElement>, inputs: Int) {
        self.bin = bin
        self.mux = mux
        state = Locked(State(inputs: inputs))
    }

    /// Streams linked into the muxer so far.
    var linked: Int { state.withLock { $0.linked } }

    /// One input's parsebin, as the user data of its handlers and probes.
    private final class Input {
        let linker: StreamLinker
        let index: Int
        let takes: Remuxer.Input
        init(linker: StreamLinker, index: Int, takes: Remuxer.Input) {
            self.linker = linker
            self.index = index
            self.takes = takes
        }
    }

    /// Follows `parser`'s streams (input `index`, which gives the file what `takes` says).
    func watch(_ parser: UnsafeMutablePointer<GstElement>, input index: Int, takes: Remuxer.Input) {
        let input = Unmanaged.passRetained(Input(linker: self, index: index, takes: takes)).toOpaque()
        let padAdded: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = { _, pad, data in
            guard let pad, let data else { return }
            let input = Unmanaged<Input>.fromOpaque(data).takeUnretainedValue()
            input.linker.link(pad, input: input)
        }
        g_signal_connect_data(parser, "pad-added", unsafeBitCast(padAdded, to: GCallback.self), input,
                              { data, _ in Unmanaged<Input>.fromOpaque(data!).release() }, GConnectFlags(rawValue: 0))
        g_signal_connect_data(parser, "autoplug-continue", unsafeBitCast(Self.autoplugContinue, to: GCallback.self), nil, nil,
                              GConnectFlags(rawValue: 0))
    }

    /// parsebin's `autoplug-continue`: false exposes a stream as it is. Streams an MP4 demuxer
    /// gives (whole access units with their codec data: H.264 `avc`, H.265 `hvc1`, raw AAC)
    /// are already what mp4mux takes, so they skip the parsers. Worse than useless there:
    /// h265parse lost a timestamp at each fragment of fragmented MP4 ("Buffer has no PTS").
    /// MPEG-TS streams (byte-stream, ADTS) still go through theirs.
    private static let autoplugContinue: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?,
                                                         UnsafeMutablePointer<GstCaps>?, UnsafeMutableRawPointer?) -> gboolean = { _, _, caps, _ in
        guard let caps, gst_caps_get_size(caps) == 1, let structure = gst_caps_get_structure(caps, 0),
              let cName = gst_structure_get_name(structure) else { return 1 }
        let name = String(cString: cName)
        let field = { (key: String) in gst_structure_get_string(structure, key).map { String(cString: $0) } }
        guard gst_structure_has_field(structure, "codec_data") != 0 else { return 1 }
        switch name {
        case "video/x-h264":
            return ["avc", "avc3"].contains(field("stream-format")) && field("alignment") == "au" ? 0 : 1
        case "video/x-h265":
            return ["hvc1", "hev1"].contains(field("stream-format")) && field("alignment") == "au" ? 0 : 1
        case "audio/mpeg":
            var version: gint = 0
            return gst_structure_get_int(structure, "mpegversion", &version) != 0 && version == 4
                && field("stream-format") == "raw" ? 0 : 1
        default:
            return 1
        }
    }

    private func link(_ pad: UnsafeMutablePointer<GstPad>, input: Input) {
        // The first data out of any of the input's streams (linked or dropped).
        let firstData: GstPadProbeCallback = { _, _, data in
            guard let data else { return GST_PAD_PROBE_REMOVE }
            let input = Unmanaged<Input>.fromOpaque(data).takeUnretainedValue()
            input.linker.inputComplete(input.index)
            return GST_PAD_PROBE_REMOVE
        }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, firstData, Unmanaged.passRetained(input).toOpaque()) { data in
            Unmanaged<Input>.fromOpaque(data!).release()
        }
        let caps = gst_pad_query_caps(pad, nil)
        defer { if let caps { gst_caps_unref(caps) } }
        var media = ""
        if let caps, gst_caps_get_size(caps) > 0, let structure = gst_caps_get_structure(caps, 0),
           let name = gst_structure_get_name(structure) {
            media = String(cString: name)
        }
        let template: String? = if media.hasPrefix("video/"), input.takes != .audio {
            "video_%u"
        } else if media.hasPrefix("audio/"), input.takes != .video {
            "audio_%u"
        } else {
            nil
        }
        guard let template, let muxPad = gst_element_request_pad_simple(mux, template) else { return discard(pad) }
        defer { gst_object_unref(muxPad) }
        guard let queue = GStreamer.make("queue") else { return }
        if input.takes == .videoAndAudio {
            // The muxer takes a stream's next buffer only with the other's beside it, and an
            // input's streams come from one demuxer thread: the queue must hold how far one
            // runs ahead of the other in the input, a whole fragment of fragmented MP4 (an HLS
            // segment, RFC 8216 keeps them to the target duration). Bounded by time only.
            do throws(GStreamerError) {
                try GStreamer.setProperty(queue, "max-size-buffers", .int(0))
                try GStreamer.setProperty(queue, "max-size-bytes", .int(0))
                try GStreamer.setProperty(queue, "max-size-time", .int(Int64(Remuxer.interleaveLimit) * 1_000_000_000))
            } catch {
                gst_object_unref(gst_object_ref_sink(queue)) // still floating: sink it to free it
                return fail(error)
            }
        }
        do { try GStreamer.add(queue, to: bin) } catch { return fail(error) }
        guard let sinkPad = gst_element_get_static_pad(queue, "sink"),
              let queueSource = gst_element_get_static_pad(queue, "src") else { return }
        defer {
            gst_object_unref(sinkPad)
            gst_object_unref(queueSource)
        }
        // Held before any data can pass, released when every input knows its streams.
        state.withLock { state in
            guard state.isHolding else { return }
            let block: GstPadProbeCallback = { _, _, _ in GST_PAD_PROBE_OK }
            let probe = gst_pad_add_probe(queueSource, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM, block, nil, nil)
            gst_object_ref(UnsafeMutableRawPointer(queueSource))
            state.held.append((queueSource, probe))
        }
        guard gst_pad_link(queueSource, muxPad) == GST_PAD_LINK_OK, gst_pad_link(pad, sinkPad) == GST_PAD_LINK_OK else {
            // The stream stays out of the file (`linked` counts the streams in it), as before:
            // only logged, since a muxer may refuse a stream it cannot hold.
            GStreamerError.notLinked(from: GStreamer.name(of: pad), to: GStreamer.name(of: mux)).logged()
            return
        }
        gst_element_sync_state_with_parent(queue)
        state.withLock { $0.linked += 1 }
    }

    /// Ends the remux with `error` (already logged): an ERROR message from the muxer, which the
    /// watcher reads like any other. Called on a streaming thread, where nothing can be thrown.
    private func fail(_ error: GStreamerError) {
        guard let gerror = g_error_new_literal(gst_core_error_quark(), gint(GST_CORE_ERROR_PAD.rawValue), error.description) else { return }
        defer { g_error_free(gerror) }
        let source = UnsafeMutableRawPointer(mux).assumingMemoryBound(to: GstObject.self)
        if let message = gst_message_new_error(source, gerror, nil) { _ = gst_element_post_message(mux, message) }
    }

    /// Input `index` found all its streams; the last one releases them all.
    private func inputComplete(_ index: Int) {
        let release = state.withLock { state -> [(pad: UnsafeMutablePointer<GstPad>, probe: gulong)] in
            guard state.complete.insert(index).inserted, !state.isHolding else { return [] }
            defer { state.held = [] }
            return state.held
        }
        for (pad, probe) in release {
            gst_pad_remove_probe(pad, probe)
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }

    /// A stream the MP4 does not take (timed metadata, subtitles, an audio that another input
    /// gives): consumed and dropped.
    private func discard(_ pad: UnsafeMutablePointer<GstPad>) {
        guard let sink = GStreamer.make("fakesink") else { return }
        do throws(GStreamerError) {
            // A fakesink that syncs would hold the stream, and so the whole input, to the clock.
            try GStreamer.setProperty(sink, "sync", .bool(false))
        } catch {
            gst_object_unref(gst_object_ref_sink(sink)) // still floating: sink it to free it
            return fail(error)
        }
        do { try GStreamer.add(sink, to: bin) } catch { return fail(error) }
        gst_element_sync_state_with_parent(sink)
        if let sinkPad = gst_element_get_static_pad(sink, "sink") {
            defer { gst_object_unref(sinkPad) }
            // Unlinked, the stream would stop its demuxer with not-linked, and the whole input with it.
            guard gst_pad_link(pad, sinkPad) == GST_PAD_LINK_OK else {
                return fail(GStreamerError.notLinked(from: GStreamer.name(of: pad), to: GStreamer.name(of: sink)).logged())
            }
        }
    }
}

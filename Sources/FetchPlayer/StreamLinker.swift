import CGLib
import CGStreamer
import ThreadKit

/// Links each stream parsebin finds: video and audio into the muxer as its input allows,
/// anything else into a fakesink. Runs on GStreamer's streaming threads.
///
/// mp4mux takes no new stream once it has written its first data, and the inputs find their
/// streams at different times (an audio rendition's first segment may come after the video's).
/// So every stream waits at its queue's output until each input has found all of its streams,
/// then all start together. parsebin adds all the streams it found before it lets data through
/// any of them (and posts no `no-more-pads`): the first data out of one of an input's streams
/// says that input is complete.
final class StreamLinker: @unchecked Sendable {
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
    private final class Input: Sendable {
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
        let input = Input(linker: self, index: index, takes: takes)
        GStreamer.onPadAdded(parser) { pad in input.linker.link(pad, input: input) }
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
        let media = GStreamer.mediaType(of: pad)
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
        do throws(GStreamerError) { try GStreamer.discard(pad, in: bin) } catch { fail(error) }
    }
}

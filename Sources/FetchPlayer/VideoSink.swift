import CGLib
import CGStreamer
import GLibSupport
import Synchronization

/// Receives frames on a GStreamer streaming thread and hands them to the main thread in order
/// (`OrderedRelay`: two may wait; an older one is dropped past that).
final class FrameOutput: Sendable {
    private let relay: OrderedRelay<VideoFrame>
    /// Frames that reached the sink and were published (some are dropped before delivery).
    let published = Atomic<Int>(0)

    init(relay: OrderedRelay<VideoFrame>) { self.relay = relay }

    /// Wraps the sample's buffer (no copy) and publishes it.
    func receive(_ sample: OpaquePointer) {
        guard let frame = VideoFrame.wrapping(sample) else { return }
        published.add(1, ordering: .relaxed)
        relay.publish(frame)
    }

    /// Forgets the frames not delivered yet (a flushing seek: they are from before it).
    func discardWaiting() { relay.discardWaiting() }
}

/// The video sink of the player and the thumbnailer: `videoconvertscale ! appsink` (or
/// `videoscale ! videoconvert` where the combined element is missing), producing BGRA with
/// square pixels, optionally no larger than the view that shows it.
///
/// Scaling here rather than in GTK is the cheap place: the converter scales the decoder's YUV
/// before converting, so a 1080p video in a small window converts and copies a small picture, and
/// GTK's renderer draws it 1:1 instead of filtering 8 MB per frame.
enum VideoSink {
    /// The caps the appsink accepts.
    static let caps = "video/x-raw,format=BGRA,pixel-aspect-ratio=1/1"

    /// The caps with the frame no larger than `width` x `height` pixels; the scaler keeps the
    /// aspect ratio and never enlarges (it fixates to the size nearest the video's own).
    static func caps(maxWidth width: Int?, maxHeight height: Int?) -> String {
        guard let width, let height, width > 0, height > 0 else { return caps }
        return caps + ",width=(int)[1,\(width)],height=(int)[1,\(height)]"
    }

    /// Replaces the appsink's caps and asks upstream to negotiate again (a `reconfigure` event).
    static func setCaps(_ description: String, on appsink: UnsafeMutablePointer<GstAppSink>) {
        let caps = gst_caps_from_string(description)
        gst_app_sink_set_caps(appsink, caps)
        gst_caps_unref(caps)
        let element = UnsafeMutableRawPointer(appsink).assumingMemoryBound(to: GstElement.self)
        if let pad = gst_element_get_static_pad(element, "sink") {
            _ = gst_pad_push_event(pad, gst_event_new_reconfigure())
            gst_object_unref(pad)
        }
    }

    /// A new bin (floating reference) and its appsink (owned by the bin); nil when a plug-in
    /// is missing.
    ///
    /// With an `output`, every prerolled and played frame goes to it from the streaming thread;
    /// without one, frames are pulled with `gst_app_sink_try_pull_preroll`.
    static func make(output: FrameOutput?, sync: Bool = true) throws(GStreamerError)
        -> (bin: UnsafeMutablePointer<GstElement>, appsink: UnsafeMutablePointer<GstAppSink>)? {
        let converters: [UnsafeMutablePointer<GstElement>]
        if let both = GStreamer.make("videoconvertscale") { // GStreamer 1.22+
            converters = [both]
        } else if let scale = GStreamer.make("videoscale"), let convert = GStreamer.make("videoconvert") {
            converters = [scale, convert]
        } else {
            return nil
        }
        guard let sinkElement = GStreamer.make("appsink", name: "frames") else { return nil }
        let chain = converters + [sinkElement]
        let bin = gst_bin_new("video-sink")!
        do throws(GStreamerError) {
            for (index, element) in chain.enumerated() {
                do throws(GStreamerError) {
                    try GStreamer.add(element, to: bin)
                } catch {
                    // The bin holds those before; the refused one is gone; those after are still floating.
                    for rest in chain[(index + 1)...] { gst_object_unref(gst_object_ref_sink(rest)) }
                    throw error
                }
            }
            for (from, to) in zip(chain, chain.dropFirst()) { try GStreamer.link(from, to) }
            let pad = gst_element_get_static_pad(chain[0], "sink")
            defer { if let pad { gst_object_unref(pad) } }
            guard let pad, let ghost = gst_ghost_pad_new("sink", pad), gst_element_add_pad(bin, ghost) != 0 else {
                throw GStreamerError.notLinked(from: "video-sink", to: GStreamer.name(of: chain[0])).logged()
            }
        } catch {
            gst_object_unref(gst_object_ref_sink(bin)) // still floating: sink it to free it
            throw error
        }

        let appsink = sinkElement.as(GstAppSink.self)
        let caps = gst_caps_from_string(Self.caps)
        gst_app_sink_set_caps(appsink, caps)
        gst_caps_unref(caps)
        gst_app_sink_set_max_buffers(appsink, 1)
        gst_app_sink_set_drop(appsink, 1)
        gst_base_sink_set_sync(sinkElement.as(GstBaseSink.self), sync ? 1 : 0)
        if let output { install(output, on: appsink) }
        return (bin, appsink)
    }

    private static func install(_ output: FrameOutput, on appsink: UnsafeMutablePointer<GstAppSink>) {
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_preroll = { sink, data in
            if let sink, let data, let sample = gst_app_sink_pull_preroll(sink) {
                Unmanaged<FrameOutput>.fromOpaque(data).takeUnretainedValue().receive(sample)
                gst_sample_unref(sample)
            }
            return GST_FLOW_OK
        }
        callbacks.new_sample = { sink, data in
            if let sink, let data, let sample = gst_app_sink_pull_sample(sink) {
                Unmanaged<FrameOutput>.fromOpaque(data).takeUnretainedValue().receive(sample)
                gst_sample_unref(sample)
            }
            return GST_FLOW_OK
        }
        // The appsink keeps the output alive until it is finalized or the callbacks replaced.
        gst_app_sink_set_callbacks(appsink, &callbacks, Unmanaged.passRetained(output).toOpaque()) { data in
            Unmanaged<FrameOutput>.fromOpaque(data!).release()
        }
    }
}

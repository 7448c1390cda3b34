import CGLib
import CGStreamer
import GLibSupport
import Synchronization

/// Receives frames on a GStreamer streaming thread and hands the newest to the main thread.
final class FrameOutput: Sendable {
    private let relay: LatestValueRelay<VideoFrame>
    /// Frames that reached the sink and were published (some are replaced before delivery).
    let published = Atomic<Int>(0)

    init(relay: LatestValueRelay<VideoFrame>) { self.relay = relay }

    /// Wraps the sample's buffer (no copy) and publishes it, replacing any undelivered frame.
    func receive(_ sample: OpaquePointer) {
        guard let frame = VideoFrame.wrapping(sample) else { return }
        published.add(1, ordering: .relaxed)
        relay.publish(frame)
    }
}

/// The video sink of the player and the thumbnailer: `videoconvert ! videoscale ! appsink`,
/// producing BGRA with square pixels.
enum VideoSink {
    /// The caps the appsink accepts.
    static let caps = "video/x-raw,format=BGRA,pixel-aspect-ratio=1/1"

    /// A new bin (floating reference) and its appsink (owned by the bin).
    ///
    /// With an `output`, every prerolled and played frame goes to it from the streaming thread;
    /// without one, frames are pulled with `gst_app_sink_try_pull_preroll`.
    static func make(output: FrameOutput?, sync: Bool = true)
        -> (bin: UnsafeMutablePointer<GstElement>, appsink: UnsafeMutablePointer<GstAppSink>)? {
        guard let convert = GStreamer.make("videoconvert"),
              let scale = GStreamer.make("videoscale"),
              let sinkElement = GStreamer.make("appsink", name: "frames") else { return nil }
        let bin = gst_bin_new("video-sink")!
        let binPointer = bin.as(GstBin.self)
        for element in [convert, scale, sinkElement] { gst_bin_add(binPointer, element) }
        guard gst_element_link(convert, scale) != 0, gst_element_link(scale, sinkElement) != 0 else {
            gst_object_unref(bin)
            return nil
        }
        let pad = gst_element_get_static_pad(convert, "sink")
        gst_element_add_pad(bin, gst_ghost_pad_new("sink", pad))
        gst_object_unref(pad)

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

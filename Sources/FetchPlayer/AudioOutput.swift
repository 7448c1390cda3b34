import CGLib
import Foundation
import CGStreamer
import GLibSupport
import ThreadKit

/// Where the player sends sound.
public enum AudioOutput: Sendable {
    /// The system's default device (`autoaudiosink`); a clock-keeping `fakesink` when the
    /// machine has no usable sound device.
    case automatic
    /// No sound: a `fakesink` that still keeps playback in real time.
    case none

    /// A new audio sink element (floating reference); nil when the plug-in is missing.
    func makeSink() throws(GStreamerError) -> UnsafeMutablePointer<GstElement>? {
        if self == .automatic, Self.hasSoundDevice, let sink = GStreamer.make("autoaudiosink") {
            return sink
        }
        return try Self.silentSink()
    }

    private static func silentSink() throws(GStreamerError) -> UnsafeMutablePointer<GstElement>? {
        guard let sink = GStreamer.make("fakesink", name: "silent-audio") else { return nil }
        do {
            // Without it the video would race through at decoding speed.
            try GStreamer.setProperty(sink, "sync", .bool(true))
        } catch {
            gst_object_unref(gst_object_ref_sink(sink)) // still floating: sink it to free it
            throw error
        }
        return sink
    }

    /// Starts the sound-device check on a worker, so the first Play finds the answer ready
    /// instead of opening the sound server on the main thread. Call it at start-up (after
    /// `GStreamer` is initialised: `DecoderPreload.start`) and hold the worker; the process's
    /// shutdown joins it in its `.media` stage at the latest.
    public static func startProbe(in shutdown: Shutdown? = .process) -> Worker {
        GStreamer.initialize()
        return Worker.run(name: "fetchplay sound probe", stage: .media, in: shutdown) { _ = hasSoundDevice }
    }

    /// Whether `autoaudiosink` finds a real device, checked once per process.
    ///
    /// `autoaudiosink` falls back to a `fakesink` child of its own when every real sink fails to
    /// open; bringing one to READY and looking at its child tells the two apart.
    static let hasSoundDevice: Bool = {
        guard let probe = GStreamer.make("autoaudiosink") else { return false }
        _ = gst_object_ref_sink(probe)
        defer {
            gst_element_set_state(probe, GST_STATE_NULL)
            gst_object_unref(probe)
        }
        guard gst_element_set_state(probe, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE else { return false }
        var child = probe.as(GstBin.self).pointee.children
        while let node = child {
            if let element = node.pointee.data?.assumingMemoryBound(to: GstElement.self),
               let factory = fetchplay_element_factory_name(element),
               String(cString: factory) != "fakesink" {
                return true
            }
            child = node.pointee.next
        }
        return false
    }()
}

import CGLib
import CGStreamer
import GLibSupport

/// Frame counts of the file playing now, for benchmarks and diagnostics.
public struct PlaybackStatistics: Sendable, Equatable {
    /// Frames the video sink rendered (handed on from the streaming thread).
    public var rendered: Int
    /// Frames the video sink dropped because they came too late (QoS).
    public var droppedLate: Int
    /// Frames published towards the main thread.
    public var published: Int
    /// Frames that reached the main thread (the rest were replaced by newer ones on the way).
    public var delivered: Int
}

extension Player {
    /// Counts for the open file; nil when nothing is open.
    public var statistics: PlaybackStatistics? {
        guard let pipeline else { return nil }
        let (rendered, dropped) = Self.sinkStatistics(pipeline.appsink)
        return PlaybackStatistics(rendered: rendered, droppedLate: dropped,
                                  published: pipeline.frames.published.load(ordering: .relaxed),
                                  delivered: framesDeliveredForFile)
    }

    /// The `stats` structure of a `GstBaseSink`: `rendered` and `dropped` buffers.
    private static func sinkStatistics(_ appsink: UnsafeMutablePointer<GstAppSink>) -> (Int, Int) {
        var value = GValue()
        g_value_init(&value, gst_structure_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(appsink.as(GObject.self), "stats", &value)
        guard let structure = g_value_get_boxed(&value)?.assumingMemoryBound(to: GstStructure.self) else { return (0, 0) }
        var rendered: guint64 = 0, dropped: guint64 = 0
        _ = gst_structure_get_uint64(structure, "rendered", &rendered)
        _ = gst_structure_get_uint64(structure, "dropped", &dropped)
        return (Int(rendered), Int(dropped))
    }
}

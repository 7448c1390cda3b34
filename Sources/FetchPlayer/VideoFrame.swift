import CGLib
import CGStreamer

/// One decoded picture in BGRA (premultiplied; video has no alpha so every pixel is opaque).
///
/// The pixels are the GStreamer buffer itself, mapped and wrapped in a `GBytes` without a copy;
/// the buffer is unmapped when the last reference to the bytes goes. A UI turns a frame into a
/// texture with `gdk_memory_texture_new(width, height, GDK_MEMORY_B8G8R8A8_PREMULTIPLIED,
/// bytes, stride)`; the texture takes its own reference to the bytes.
public final class VideoFrame: @unchecked Sendable {
    // Sendable: every stored property is immutable and GBytes is immutable and thread-safe.

    /// Pixels.
    public let width: Int
    /// Pixels.
    public let height: Int
    /// Bytes from one row to the next (at least `4 * width`).
    public let stride: Int
    /// Presentation time in seconds, when the buffer has one.
    public let timestamp: Double?
    /// A `GBytes *` holding `stride * height` bytes; the frame owns one reference.
    public let bytes: OpaquePointer

    /// Takes over one reference to `bytes`.
    init(width: Int, height: Int, stride: Int, timestamp: Double?, bytes: OpaquePointer) {
        self.width = width
        self.height = height
        self.stride = stride
        self.timestamp = timestamp
        self.bytes = bytes
    }

    deinit { g_bytes_unref(bytes) }

    /// Calls `body` with the pixel rows (`stride * height` bytes).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var size: gsize = 0
        let data = g_bytes_get_data(bytes, &size)
        return try body(UnsafeRawBufferPointer(start: data, count: Int(size)))
    }

    /// The colour at (`x`, `y`) as blue, green, red, alpha.
    public func pixel(x: Int, y: Int) -> (blue: UInt8, green: UInt8, red: UInt8, alpha: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the frame")
        return withUnsafeBytes { pixels in
            let offset = y * stride + x * 4
            return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
        }
    }
}

extension VideoFrame {
    /// Maps the BGRA buffer of `sample` and wraps it without copying; nil if it cannot be mapped.
    ///
    /// Safe on any thread (the appsink streaming thread, a thumbnail worker).
    static func wrapping(_ sample: OpaquePointer) -> VideoFrame? {
        guard let caps = gst_sample_get_caps(sample),
              let buffer = gst_sample_get_buffer(sample) else { return nil }
        var info = GstVideoInfo()
        guard gst_video_info_from_caps(&info, caps) != 0 else { return nil }

        let frame = UnsafeMutablePointer<GstVideoFrame>.allocate(capacity: 1)
        frame.initialize(to: GstVideoFrame())
        // The mapped frame holds its own reference to the buffer until it is unmapped.
        guard gst_video_frame_map(frame, &info, buffer, GST_MAP_READ) != 0,
              let data = frame.pointee.data.0 else {
            frame.deinitialize(count: 1)
            frame.deallocate()
            return nil
        }
        let width = Int(frame.pointee.info.width)
        let height = Int(frame.pointee.info.height)
        let stride = Int(frame.pointee.info.stride.0)
        let pts = buffer.pointee.pts
        let bytes = g_bytes_new_with_free_func(data, gsize(stride * height), { pointer in
            let frame = pointer!.assumingMemoryBound(to: GstVideoFrame.self)
            gst_video_frame_unmap(frame)
            frame.deinitialize(count: 1)
            frame.deallocate()
        }, frame)!
        return VideoFrame(width: width, height: height, stride: stride,
                          timestamp: pts == GStreamer.clockTimeNone ? nil : Double(pts) / GStreamer.second,
                          bytes: bytes)
    }
}

import CGtk
import FetchPlayer
import GLibSupport

/// A frame as a cairo image surface over its own mapped bytes (the cairo path of
/// `VideoPaintable`): no copy is made here.
///
/// The surface holds a reference to the `VideoFrame` (cairo user data) for as long as cairo keeps
/// the surface, so the GStreamer buffer stays mapped while anything may still read it, even after
/// the view moved on to the next frame.
final class FrameSurface {
    let frame: VideoFrame
    /// A `cairo_surface_t *`; this object owns one reference.
    let surface: OpaquePointer

    /// Only the address matters: it names the user-data slot holding the frame.
    nonisolated(unsafe) private static let frameKey = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)

    /// Nil if cairo cannot use the frame's layout (a stride it does not accept).
    init?(_ frame: VideoFrame) {
        var size: gsize = 0
        guard let data = g_bytes_get_data(frame.bytes, &size), Int(size) >= frame.stride * frame.height
        else { return nil }
        // RGB24 (x8r8g8b8): video is opaque, and an opaque source lets pixman copy rows instead of
        // blending. The bytes are the buffer mapped for reading; cairo only reads a source surface.
        guard let surface = cairo_image_surface_create_for_data(
            UnsafeMutablePointer(mutating: data.assumingMemoryBound(to: UInt8.self)), CAIRO_FORMAT_RGB24,
            Int32(frame.width), Int32(frame.height), Int32(frame.stride)) else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        let retained = Unmanaged.passRetained(frame).toOpaque()
        guard cairo_surface_set_user_data(surface, Self.frameKey, retained, { pointer in
            Unmanaged<VideoFrame>.fromOpaque(pointer!).release()
        }) == CAIRO_STATUS_SUCCESS else {
            Unmanaged<VideoFrame>.fromOpaque(retained).release()
            cairo_surface_destroy(surface)
            return nil
        }
        self.frame = frame
        self.surface = surface
    }

    deinit { cairo_surface_destroy(surface) }

    /// Paints the frame where `place` puts it (`cr` in the picture's coordinates).
    func paint(on cr: OpaquePointer, at place: FramePlacement) {
        cairo_save(cr)
        cairo_translate(cr, place.x, place.y)
        cairo_scale(cr, place.scale, place.scale)
        cairo_set_source_surface(cr, surface, 0, 0)
        // When scaled, edge pixels repeat outward so the border does not fade into transparency.
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        cairo_rectangle(cr, 0, 0, Double(frame.width), Double(frame.height))
        cairo_fill(cr)
        cairo_restore(cr)
    }
}

/// Where a frame lands in the picture: contain (aspect kept, centred), in widget coordinates.
struct FramePlacement: Equatable {
    var x: Double
    var y: Double
    /// Widget units per frame pixel.
    var scale: Double

    /// `frame` pixels in a `width` x `height` widget whose device scale is `deviceScale`.
    ///
    /// GStreamer already scaled the frame to the widget's device pixels, so it usually fills one
    /// dimension exactly: then it is drawn 1:1 at a whole device pixel (a plain copy, sharp).
    /// Otherwise (a small video enlarged, or a resize the caps have not caught up with) the
    /// renderer scales it to fit.
    init(frame: (width: Int, height: Int), width: Double, height: Double, deviceScale: Double) {
        let frameWidth = Double(frame.width), frameHeight = Double(frame.height)
        let fit = min(width * deviceScale / frameWidth, height * deviceScale / frameHeight)
        // Within one device pixel of the widget's size in the fitting dimension: draw 1:1.
        let native = abs(fit - 1) * max(frameWidth, frameHeight) < 1
        let scale = (native ? 1 : fit) / deviceScale
        func offset(_ space: Double, _ extent: Double) -> Double {
            let centred = (space - extent * scale) / 2
            return native ? (centred * deviceScale).rounded() / deviceScale : centred
        }
        self.scale = scale
        x = offset(width, frameWidth)
        y = offset(height, frameHeight)
    }
}

extension VideoView {
    /// Picks the frame path when the picture is realized, from its window's renderer (GL or
    /// Vulkan: textures; cairo: cairo surfaces), and follows its scale factor.
    func installFramePath() {
        picture.connect("realize") { [weak self] in self?.updateFramePath() }.store(in: &connections)
        picture.connect("notify::scale-factor") { [weak self] (_: UnsafeMutableRawPointer?) in
            self?.updateFramePath()
        }.store(in: &connections)
    }

    private func updateFramePath() {
        if let path = VideoPaintable.FramePath.forRenderer(of: picture) { paintable.path = path }
        paintable.deviceScale = Double(gtk_widget_get_scale_factor(picture))
    }

    /// How frames are painted now.
    public var framePath: VideoPaintable.FramePath { paintable.path }
}

import CGtk
import FetchPlayer
import GLibSupport
import ThreadKit

/// The picture's contents: the current frame as a `GdkPaintable`, painted the way that suits the
/// renderer the window runs on.
///
/// A `GtkPicture` shows it; each new frame only invalidates the contents (a redraw of the
/// picture), never the size: the paintable has no intrinsic size, so the picture gives it its
/// whole area and the paintable places the frame itself (contain, centred, black bars). Replacing
/// the picture's paintable per frame instead would relayout the window every frame.
///
/// How a frame is painted (`FramePath`), decided at realize from the window's `GskRenderer`:
/// - `.texture` (GL, Vulkan): a `GdkMemoryTexture` over the frame's mapped bytes (no copy) in a
///   texture node; the renderer uploads it once and composites it on the GPU.
/// - `.cairo` (the software renderer): a cairo image surface over the same bytes in a cairo node,
///   which pixman copies straight into the window. A texture there would be converted through
///   floats by GTK 4.8's cairo renderer.
@MainActor
public final class VideoPaintable {
    /// How frames reach the renderer.
    public enum FramePath: Equatable, Sendable {
        case texture
        case cairo

        /// The path for the renderer of `widget`'s window; nil before the widget is realized.
        static func forRenderer(of widget: UnsafeMutablePointer<GtkWidget>) -> FramePath? {
            guard let native = gtk_widget_get_native(widget), let renderer = gtk_native_get_renderer(native)
            else { return nil }
            return fp_renderer_is_cairo(renderer) != 0 ? .cairo : .texture
        }
    }

    /// The `GdkPaintable *`; this object owns one reference.
    nonisolated(unsafe) let paintable: OpaquePointer
    /// The path frames take; `.cairo` until the picture is realized.
    var path: FramePath = .cairo {
        didSet { if path != oldValue { drop() } }
    }
    /// The frame painted now.
    private(set) var frame: VideoFrame?
    /// Device pixels per widget unit of the picture (its scale factor).
    var deviceScale: Double = 1
    /// Kept free above and below the frame, in widget units, painted black like the bars beside
    /// it: the room of the video page's bars at rest. The picture's own black, not a margin
    /// showing the window's background, and no layer more under the frame.
    var reserved: Double = 0 {
        didSet { if reserved != oldValue { gdk_paintable_invalidate_contents(paintable) } }
    }
    /// The current frame as a `GdkTexture *` (owned) or a cairo surface, made at its first paint.
    nonisolated(unsafe) private var texture: OpaquePointer?
    private var surface: FrameSurface?
    /// Frames turned into a texture or a surface (each at most once).
    private(set) var framesPrepared = 0

    init() {
        paintable = OpaquePointer(g_object_new_with_properties(Self.type, 0, nil, nil)!)
        let box = CallbackBox(Weak(self))
        g_object_set_qdata_full(paintable.as(GObject.self), Self.quark, box.retainedPointer(), releaseBox)
    }

    deinit {
        if let texture { g_object_unref(texture.rawObject) }
        g_object_unref(paintable.rawObject)
    }

    /// Shows `frame` from the next paint on (nil: black).
    func show(_ frame: VideoFrame?) {
        drop()
        self.frame = frame
        gdk_paintable_invalidate_contents(paintable)
    }

    /// Forgets the texture or surface of the current frame (it is replaced, or the path changed).
    private func drop() {
        if let texture { g_object_unref(texture.rawObject) }
        texture = nil
        surface = nil
    }

    /// The paintable's snapshot: black bars around the frame, the frame in the middle.
    fileprivate func snapshot(_ snapshot: OpaquePointer, width: Double, height: Double) {
        guard let frame else { return Self.fill(snapshot, x: 0, y: 0, width: width, height: height) }
        let place = placement(of: frame, width: width, height: height)
        let frameWidth = Double(frame.width) * place.scale, frameHeight = Double(frame.height) * place.scale
        // Only the bars are filled, so the frame's pixels are written once.
        Self.fill(snapshot, x: 0, y: 0, width: width, height: place.y)
        Self.fill(snapshot, x: 0, y: place.y + frameHeight, width: width, height: height - place.y - frameHeight)
        Self.fill(snapshot, x: 0, y: place.y, width: place.x, height: frameHeight)
        Self.fill(snapshot, x: place.x + frameWidth, y: place.y, width: width - place.x - frameWidth, height: frameHeight)

        var bounds = Self.rect(place.x, place.y, frameWidth, frameHeight)
        switch path {
        case .texture:
            guard let texture = texture ?? makeTexture(frame) else { return }
            gtk_snapshot_append_texture(snapshot, texture, &bounds)
        case .cairo:
            guard let surface = surface ?? makeSurface(frame), let cr = gtk_snapshot_append_cairo(snapshot, &bounds)
            else { return }
            surface.paint(on: cr, at: place)
            cairo_destroy(cr)
        }
    }

    /// Where `frame` lands in a `width` x `height` picture: contain, between the reserved room.
    func placement(of frame: VideoFrame, width: Double, height: Double) -> FramePlacement {
        var place = FramePlacement(frame: (frame.width, frame.height), width: width,
                                   height: max(0, height - 2 * reserved), deviceScale: deviceScale)
        place.y += reserved
        return place
    }

    private func makeTexture(_ frame: VideoFrame) -> OpaquePointer? {
        // The texture takes its own reference to the bytes, whose release unmaps the buffer:
        // the frame stays mapped for as long as GTK may upload from it. Video is opaque (BGRA
        // with alpha 255), so premultiplied is exact and is the layout GL uploads as it is.
        texture = gdk_memory_texture_new(Int32(frame.width), Int32(frame.height),
                                         GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, frame.bytes, gsize(frame.stride))
        if texture != nil { framesPrepared += 1 }
        return texture
    }

    private func makeSurface(_ frame: VideoFrame) -> FrameSurface? {
        surface = FrameSurface(frame)
        if surface != nil { framesPrepared += 1 }
        return surface
    }

    private static func fill(_ snapshot: OpaquePointer, x: Double, y: Double, width: Double, height: Double) {
        guard width > 0, height > 0 else { return }
        var black = GdkRGBA(red: 0, green: 0, blue: 0, alpha: 1)
        var bounds = rect(x, y, width, height)
        gtk_snapshot_append_color(snapshot, &black, &bounds)
    }

    private static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> graphene_rect_t {
        graphene_rect_t(origin: graphene_point_t(x: Float(x), y: Float(y)),
                        size: graphene_size_t(width: Float(width), height: Float(height)))
    }

    // MARK: The GObject type

    /// Names the qdata slot holding the Swift side of an instance.
    private static let quark = g_quark_from_static_string("fetchplay-video-paintable")

    /// `FetchplayVideoPaintable`: a plain GObject implementing `GdkPaintable` with only a
    /// snapshot (intrinsic size and flags keep the interface's defaults: none, dynamic).
    private static let type: GType = {
        let type = g_type_register_static_simple(
            fp_type_object(), "FetchplayVideoPaintable", guint(MemoryLayout<GObjectClass>.size), nil,
            guint(MemoryLayout<GObject>.size), nil, GTypeFlags(rawValue: 0))
        var info = GInterfaceInfo(interface_init: { interface, _ in
            let paintable = interface!.assumingMemoryBound(to: GdkPaintableInterface.self)
            paintable.pointee.snapshot = { instance, snapshot, width, height in
                guard let instance, let snapshot,
                      let data = g_object_get_qdata(instance.as(GObject.self), VideoPaintable.quark) else { return }
                let owner = CallbackBox<Weak<VideoPaintable>>.from(data).body
                nonisolated(unsafe) let target = snapshot
                MainActor.assumeIsolated { owner.object?.snapshot(target, width: width, height: height) }
            }
        }, interface_finalize: nil, interface_data: nil)
        g_type_add_interface_static(type, gdk_paintable_get_type(), &info)
        return type
    }()
}

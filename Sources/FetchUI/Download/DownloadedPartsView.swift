import CGtk
import GLibSupport
import ThreadKit

/// The parts of a video that are downloaded, drawn as a thin line under the seek bar's trough
/// while the video still arrives (watching while it downloads).
///
/// A drawing area laid over the seek bar that takes no input: clicks and drags go through to
/// the scale. It finds the scale's trough (GTK 4 draws it as a child widget with the CSS name
/// `trough`) and lines the parts up with it, whatever the theme's margins are.
@MainActor
final class DownloadedPartsView {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// The overlay holding the seek bar and the line; goes where the seek bar would.
    let widget: Widget
    private let area: Widget
    private let seekBar: Widget
    private var owned: [OwnedWidget] = []

    /// Downloaded parts as fractions of the whole (0…1); nil hides the line.
    private(set) var parts: [ClosedRange<Double>]?

    /// Height of the line, and its gap under the trough, in pixels.
    static let lineHeight = 3.0, gap = 2.0

    init(seekBar: Widget) {
        self.seekBar = seekBar
        widget = gtk_overlay_new()!
        gtk_widget_set_hexpand(widget, 1)
        gtk_overlay_set_child(widget.opaque, seekBar)
        area = gtk_drawing_area_new()!
        gtk_widget_add_css_class(area, "downloaded-parts")
        gtk_widget_set_can_target(area, 0)
        gtk_widget_set_visible(area, 0)
        gtk_overlay_add_overlay(widget.opaque, area)

        let box = CallbackBox(Weak(self))
        gtk_drawing_area_set_draw_func(area.as(GtkDrawingArea.self), { _, cr, _, _, data in
            let view = CallbackBox<Weak<DownloadedPartsView>>.from(data).body.object
            nonisolated(unsafe) let cr = cr
            MainActor.assumeIsolated { view?.draw(cr!) }
        }, box.retainedPointer(), releaseBox)
        owned = OwnedWidget.keep(widget, area, seekBar)
    }

    /// Shows `parts` (nil: the video is whole, or a local file); redraws only on a change.
    func show(_ parts: [ClosedRange<Double>]?) {
        guard parts != self.parts else { return }
        self.parts = parts
        Widgets.setVisible(area, parts != nil)
        gtk_widget_queue_draw(area)
    }

    /// Where the parts are drawn in the area's coordinates: under the trough, or along the
    /// bottom when the trough cannot be found.
    var lineRect: graphene_rect_t {
        let width = Double(gtk_widget_get_width(area)), height = Double(gtk_widget_get_height(area))
        var bounds = graphene_rect_t()
        if let trough = Self.trough(of: seekBar), gtk_widget_compute_bounds(trough, area, &bounds) != 0 {
            let y = min(Double(bounds.origin.y + bounds.size.height) + Self.gap, height - Self.lineHeight)
            return graphene_rect_t(origin: graphene_point_t(x: bounds.origin.x, y: Float(y)),
                                   size: graphene_size_t(width: bounds.size.width, height: Float(Self.lineHeight)))
        }
        return graphene_rect_t(origin: graphene_point_t(x: 0, y: Float(height - Self.lineHeight)),
                               size: graphene_size_t(width: Float(width), height: Float(Self.lineHeight)))
    }

    private func draw(_ cr: OpaquePointer) {
        guard let parts, !parts.isEmpty else { return }
        let rect = lineRect
        let x = Double(rect.origin.x), y = Double(rect.origin.y), width = Double(rect.size.width)
        // The bars are dark and translucent over the video: light parts read on any picture.
        cairo_set_source_rgba(cr, 1, 1, 1, 0.7)
        for part in parts {
            let start = x + part.lowerBound * width, end = x + part.upperBound * width
            // At least a pixel, so that a small part far ahead still shows.
            cairo_rectangle(cr, start, y, max(end - start, 1), Self.lineHeight)
        }
        cairo_fill(cr)
    }

    /// The scale's trough: the child widget GTK names `trough`.
    private static func trough(of scale: Widget) -> Widget? {
        var child = gtk_widget_get_first_child(scale)
        while let current = child {
            if let name = gtk_widget_get_css_name(current), String(cString: name) == "trough" { return current }
            child = gtk_widget_get_next_sibling(current)
        }
        return nil
    }
}

import CGtk
import FetchViewModel
import Foundation

/// Draws one `RingFrame` with cairo: the track, the arc, the percentage, the checkmark.
///
/// Works in logical (widget) coordinates; cairo's device scale makes it crisp on HiDPI. Used by
/// `RingView`'s draw function and, on an image surface, by the tests.
public enum RingDrawing {
    /// Draws `frame` on `cr` within `geometry`.
    ///
    /// - Parameter layout: a `PangoLayout` for the label (the widget's, so it uses the widget's
    ///   font); nil makes one for `cr`.
    public static func draw(_ cr: OpaquePointer, geometry: RingGeometry, frame: RingFrame,
                            palette: RingPalette, layout: OpaquePointer? = nil) {
        guard geometry.radius > 0 else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_set_line_width(cr, geometry.lineWidth)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)

        // The track: a faint full circle.
        cairo_new_path(cr)
        cairo_arc(cr, geometry.center.x, geometry.center.y, geometry.radius, 0, 2 * .pi)
        setSource(cr, palette.track(for: frame.tone))
        cairo_stroke(cr)

        drawArc(cr, geometry: geometry, frame: frame, color: palette.arc(for: frame.tone))

        if frame.checkmark > 0 {
            drawCheckmark(cr, geometry: geometry, progress: frame.checkmark, color: palette.success)
        } else if let label = frame.label {
            drawLabel(cr, label, geometry: geometry, color: palette.foreground, layout: layout)
        }
    }

    private static func drawArc(_ cr: OpaquePointer, geometry: RingGeometry, frame: RingFrame, color: RGBAColor) {
        let fraction = min(max(frame.fraction, 0), 1)
        guard fraction > 0 else { return }
        cairo_new_path(cr)
        if fraction >= 1 {
            cairo_arc(cr, geometry.center.x, geometry.center.y, geometry.radius, 0, 2 * .pi)
            cairo_close_path(cr)
        } else {
            let start = RingGeometry.startAngle + 2 * .pi * (frame.spinStart ?? 0)
            cairo_arc(cr, geometry.center.x, geometry.center.y, geometry.radius, start, start + 2 * .pi * fraction)
        }
        setSource(cr, color)
        cairo_stroke(cr)
    }

    private static func drawCheckmark(_ cr: OpaquePointer, geometry: RingGeometry, progress: Double, color: RGBAColor) {
        let points = geometry.checkmark(upTo: progress)
        guard let first = points.first, points.count > 1 else { return }
        cairo_new_path(cr)
        cairo_set_line_width(cr, geometry.checkmarkWidth)
        cairo_move_to(cr, first.x, first.y)
        for point in points.dropFirst() { cairo_line_to(cr, point.x, point.y) }
        setSource(cr, color)
        cairo_stroke(cr)
    }

    private static func drawLabel(_ cr: OpaquePointer, _ text: String, geometry: RingGeometry,
                                  color: RGBAColor, layout given: OpaquePointer?) {
        let layout = given ?? pango_cairo_create_layout(cr)!
        defer { if given == nil { g_object_unref(UnsafeMutableRawPointer(layout)) } }

        let base = pango_context_get_font_description(pango_layout_get_context(layout))
        let font = base.map { pango_font_description_copy($0) } ?? pango_font_description_new()
        pango_font_description_set_weight(font, PANGO_WEIGHT_BOLD)
        pango_font_description_set_absolute_size(font, geometry.labelFontSize * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)

        // Tabular figures, so the number does not wobble as it counts up.
        let attributes = pango_attr_list_new()
        pango_attr_list_insert(attributes, pango_attr_font_features_new("tnum"))
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
        pango_layout_set_text(layout, text, -1)

        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let x = geometry.center.x - Double(logical.width) / 2 - Double(logical.x)
        let y = geometry.center.y - Double(ink.height) / 2 - Double(ink.y)
        cairo_move_to(cr, x, y)
        setSource(cr, color)
        pango_cairo_show_layout(cr, layout)
    }

    private static func setSource(_ cr: OpaquePointer, _ color: RGBAColor) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    }
}

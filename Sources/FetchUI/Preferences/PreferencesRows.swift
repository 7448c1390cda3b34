import CGtk
import GLibSupport

/// Builders for the Preferences window's look, GNOME's settings shape in plain GTK 4.8 (no
/// libadwaita): groups with a heading over a rounded list, each row a title, a dimmed line
/// under it and its control at the end.
///
/// ```
/// group                 box.preferences-group
/// ├─ heading            label.heading
/// └─ list               GtkListBox.boxed-list (nothing selectable)
///    └─ row             title / subtitle ─ control
/// ```
@MainActor
enum PreferencesRows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// A titled group of `rows`; `list` gets the list holding them.
    static func group(_ title: String, _ rows: [Widget], list listOut: inout [Widget]) -> Widget {
        let heading = Widgets.label(title, classes: ["heading"])
        gtk_label_set_xalign(heading.opaque, 0)
        gtk_label_set_wrap(heading.opaque, 1)
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        gtk_widget_add_css_class(list, "boxed-list")
        rows.forEach { gtk_list_box_append(list.opaque, $0) }
        listOut.append(list)
        return Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 8, classes: ["preferences-group"], [heading, list])
    }

    /// A row: `title` over `subtitle` (nil: none; `subtitleLabel` gets it to change later), the
    /// `control` at the end. The control is named by the title for screen readers.
    ///
    /// A `wide` control (a spin button with its unit) goes under the title in a narrow window.
    static func row(_ title: String, subtitle: String?, control: Widget, wide: Bool = false,
                    subtitleLabel: UnsafeMutablePointer<Widget?>? = nil) -> Widget {
        let titleLabel = Widgets.label(title)
        gtk_label_set_xalign(titleLabel.opaque, 0)
        gtk_label_set_wrap(titleLabel.opaque, 1)
        gtk_label_set_wrap_mode(titleLabel.opaque, PANGO_WRAP_WORD_CHAR)
        var texts = [titleLabel]
        if let subtitle {
            let label = Widgets.label(subtitle, classes: ["dim-label", "caption"])
            gtk_label_set_xalign(label.opaque, 0)
            gtk_label_set_wrap(label.opaque, 1)
            gtk_label_set_wrap_mode(label.opaque, PANGO_WRAP_WORD_CHAR)
            texts.append(label)
            subtitleLabel?.pointee = label
        }
        let column = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 2, texts)
        gtk_widget_set_hexpand(column, 1)
        gtk_widget_set_valign(column, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(control, GTK_ALIGN_CENTER)
        fp_accessible_update_label(control.opaque, title)
        if let subtitle { fp_accessible_update_description(control.opaque, subtitle) }
        let content = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, [column, control])
        let row = gtk_list_box_row_new()!
        if wide { gtk_widget_add_css_class(row, "wide-control") }
        gtk_list_box_row_set_activatable(row.as(GtkListBoxRow.self), 0)
        gtk_list_box_row_set_child(row.as(GtkListBoxRow.self), content)
        return row
    }

    /// A spin button from `range` in steps of `step`, showing `digits` decimals in a field
    /// `widthChars` wide.
    static func spinButton(_ range: ClosedRange<Double>, step: Double, digits: UInt32 = 0, widthChars: Int32) -> Widget {
        let spin = gtk_spin_button_new_with_range(range.lowerBound, range.upperBound, step)!
        gtk_spin_button_set_digits(spin.opaque, digits)
        gtk_spin_button_set_numeric(spin.opaque, 1)
        gtk_editable_set_width_chars(spin.opaque, widthChars)
        gtk_widget_add_css_class(spin, "numeric")
        return spin
    }

    /// A control with its unit after it ("KiB/s").
    static func withUnit(_ control: Widget, _ unit: String) -> Widget {
        Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, [control, Widgets.label(unit, classes: ["dim-label"])])
    }

    /// Lays the rows of `list` out for a narrow window (a wide control under its title) or a
    /// wide one (every control beside its title).
    static func setNarrow(_ narrow: Bool, rowsOf list: Widget) {
        var row = gtk_widget_get_first_child(list)
        while let current = row {
            if gtk_widget_has_css_class(current, "wide-control") != 0,
               let content = gtk_list_box_row_get_child(current.as(GtkListBoxRow.self)) {
                let orientation = narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL
                if gtk_orientable_get_orientation(content.opaque) != orientation {
                    gtk_orientable_set_orientation(content.opaque, orientation)
                    gtk_box_set_spacing(content.as(GtkBox.self), narrow ? 8 : 12)
                    if let control = gtk_widget_get_last_child(content) {
                        gtk_widget_set_halign(control, narrow ? GTK_ALIGN_END : GTK_ALIGN_FILL)
                    }
                }
            }
            row = gtk_widget_get_next_sibling(current)
        }
    }
}

import CAdwaita
import CGtk
import GLibSupport

/// Builders for the Preferences window's rows: libadwaita's `AdwActionRow` with a title, a
/// dimmed subtitle and its control at the end, in `AdwPreferencesGroup`s.
///
/// ```
/// page                  AdwPreferencesPage
/// └─ group              AdwPreferencesGroup: heading over a boxed list
///    └─ row             AdwActionRow: title / subtitle ─ control (switch, spin button, button)
/// ```
/// libadwaita 1.2 has no switch or spin rows (1.4): a row holds a GtkSwitch or GtkSpinButton
/// as its suffix, and a switch's row toggles it when activated.
@MainActor
enum PreferencesRows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// A titled group of `rows` (`description`: a line under the title).
    static func group(_ title: String, description: String? = nil, _ rows: [Widget]) -> Widget {
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(group.as(AdwPreferencesGroup.self), title)
        if let description { adw_preferences_group_set_description(group.as(AdwPreferencesGroup.self), description) }
        rows.forEach { adw_preferences_group_add(group.as(AdwPreferencesGroup.self), $0) }
        return group
    }

    /// A row: `title` over `subtitle` (nil: none), the `control` at the end. The control is
    /// named by the title for screen readers; a switch is toggled by activating the row too.
    static func row(_ title: String, subtitle: String?, control: Widget) -> Widget {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(row.as(AdwPreferencesRow.self), title)
        // Titles are words from translators, never markup.
        adw_preferences_row_set_use_markup(row.as(AdwPreferencesRow.self), 0)
        if let subtitle { adw_action_row_set_subtitle(row.as(AdwActionRow.self), subtitle) }
        gtk_widget_set_valign(control, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(row.as(AdwActionRow.self), control)
        fp_accessible_update_label(control.opaque, title)
        if let subtitle { fp_accessible_update_description(control.opaque, subtitle) }
        if Widgets.typeName(control) == "GtkSwitch" {
            adw_action_row_set_activatable_widget(row.as(AdwActionRow.self), control)
        }
        return row
    }

    /// The subtitle of a row made by `row`.
    static func setSubtitle(_ row: Widget, _ subtitle: String) {
        let current = adw_action_row_get_subtitle(row.as(AdwActionRow.self)).map { String(cString: $0) }
        if current != subtitle { adw_action_row_set_subtitle(row.as(AdwActionRow.self), subtitle) }
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
}

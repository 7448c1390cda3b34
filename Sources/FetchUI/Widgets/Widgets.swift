import CGtk
import FetchViewModel
import GLibSupport

/// Small builders for the plain GTK widgets the window is made of.
@MainActor
enum Widgets {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    static func box(_ orientation: GtkOrientation, spacing: Int32, classes: [String] = [],
                    _ children: [Widget] = []) -> Widget {
        let box = gtk_box_new(orientation, spacing)!
        classes.forEach { gtk_widget_add_css_class(box, $0) }
        children.forEach { gtk_box_append(box.as(GtkBox.self), $0) }
        return box
    }

    static func label(_ text: String, classes: [String] = [], wrap: Bool = false) -> Widget {
        let label = gtk_label_new(text)!
        classes.forEach { gtk_widget_add_css_class(label, $0) }
        if wrap {
            gtk_label_set_wrap(label.opaque, 1)
            gtk_label_set_justify(label.opaque, GTK_JUSTIFY_CENTER)
        }
        return label
    }

    /// A button bound to an action, with a tooltip and an accessible label.
    ///
    /// - Parameters:
    ///   - label: the visible text; nil for an icon-only button.
    ///   - accessibleLabel: what a screen reader says (defaults to the tooltip).
    static func button(_ label: String?, icon: String? = nil, action: FetchplayAction,
                       tooltip: String, accessibleLabel: String? = nil, classes: [String] = []) -> Widget {
        let button: Widget
        switch (label, icon) {
        case let (label?, icon?):
            button = gtk_button_new()!
            let content = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, [
                gtk_image_new_from_icon_name(icon)!, gtk_label_new_with_mnemonic(label)!,
            ])
            gtk_widget_set_halign(content, GTK_ALIGN_CENTER)
            gtk_button_set_child(button.as(GtkButton.self), content)
        case let (label?, nil):
            button = gtk_button_new_with_mnemonic(label)!
        case let (nil, icon):
            button = gtk_button_new_from_icon_name(icon ?? "image-missing")!
        }
        gtk_actionable_set_action_name(button.opaque, action.detailedName)
        gtk_widget_set_tooltip_text(button, tooltip)
        fp_accessible_update_label(button.opaque, accessibleLabel ?? tooltip)
        classes.forEach { gtk_widget_add_css_class(button, $0) }
        return button
    }

    static func setVisible(_ widget: Widget, _ visible: Bool) {
        if (gtk_widget_get_visible(widget) != 0) != visible { gtk_widget_set_visible(widget, visible ? 1 : 0) }
    }

    static func setText(_ label: Widget, _ text: String) {
        let current = gtk_label_get_text(label.opaque).map { String(cString: $0) }
        if current != text { gtk_label_set_text(label.opaque, text) }
    }

    /// Sets a tooltip only when it changes (nil removes it).
    static func setTooltip(_ widget: Widget, _ text: String?) {
        let current = gtk_widget_get_tooltip_text(widget).map { String(cString: $0) }
        if current != text { gtk_widget_set_tooltip_text(widget, text) }
    }

    /// Whether the keyboard focus of `window` is `widget` or inside it.
    static func focusIsIn(_ window: Widget, _ widget: Widget) -> Bool {
        guard let focus = gtk_root_get_focus(window.opaque) else { return false }
        return focus == widget || gtk_widget_is_ancestor(focus, widget) != 0
    }

    /// The GType name of `widget` ("GtkLabel", "AdwToastWidget"); nil for none.
    static func typeName(_ widget: Widget?) -> String? {
        widget.map { String(cString: g_type_name(fp_widget_type($0))) }
    }

    /// Every widget under `widget`, depth first (what a dialog made of its own, for tests).
    static func descendants(of widget: Widget) -> [Widget] {
        var result: [Widget] = []
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            result.append(current)
            result += descendants(of: current)
            child = gtk_widget_get_next_sibling(current)
        }
        return result
    }
}

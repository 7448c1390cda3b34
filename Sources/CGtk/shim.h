#pragma once
#include <gtk/gtk.h>
#include <pango/pangocairo.h>

// What Swift cannot import from GTK (variadic functions, macros, construct-only properties) as
// small typed functions, all prefixed `fp_`.

/// A GtkDrawingArea created with an accessible role (the role is a construct-only property).
static inline GtkWidget *fp_drawing_area_new_with_role(GtkAccessibleRole role) {
    return GTK_WIDGET(g_object_new(GTK_TYPE_DRAWING_AREA, "accessible-role", role, NULL));
}

/// Sets the value range of a range-like accessible (progress bar, slider) in one call.
static inline void fp_accessible_update_value(GtkAccessible *accessible, double min, double max,
                                              double now, const char *text) {
    gtk_accessible_update_property(accessible,
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, min,
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, max,
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, now,
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text,
                                   -1);
}

/// Sets the accessible label (what a screen reader announces for the widget).
static inline void fp_accessible_update_label(GtkAccessible *accessible, const char *label) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/// Sets the accessible description (read after the label).
static inline void fp_accessible_update_description(GtkAccessible *accessible, const char *text) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

/// Marks an accessible busy or not (a progress bar while the download runs).
static inline void fp_accessible_update_busy(GtkAccessible *accessible, gboolean busy) {
    gtk_accessible_update_state(accessible, GTK_ACCESSIBLE_STATE_BUSY, busy, -1);
}

/// Whether the person's settings allow animations (`gtk-enable-animations`).
static inline gboolean fp_widget_animations_enabled(GtkWidget *widget) {
    gboolean enabled = TRUE;
    g_object_get(gtk_widget_get_settings(widget), "gtk-enable-animations", &enabled, NULL);
    return enabled;
}

/// Turns the display's animations on or off (tests: a snapshot of a window just shown caught
/// libadwaita's header title halfway through its crossfade).
static inline void fp_set_animations_enabled(gboolean enabled) {
    g_object_set(gtk_settings_get_default(), "gtk-enable-animations", enabled, NULL);
}

/// A file filter that accepts videos (any `video/*` MIME type).
static inline GtkFileFilter *fp_video_file_filter(const char *name) {
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, name);
    gtk_file_filter_add_mime_type(filter, "video/*");
    return filter;
}

/// `G_TYPE_OBJECT` (a macro), the parent of types registered from Swift.
static inline GType fp_type_object(void) {
    return G_TYPE_OBJECT;
}

/// Whether `renderer` is GSK's software renderer (`GSK_IS_CAIRO_RENDERER`); any other (GL,
/// Vulkan) composites textures on the GPU.
static inline gboolean fp_renderer_is_cairo(GskRenderer *renderer) {
    return GSK_IS_CAIRO_RENDERER(renderer);
}

/// The GType of a widget (`G_OBJECT_TYPE` is a macro): tests name the focused widget.
static inline GType fp_widget_type(GtkWidget *widget) {
    return G_OBJECT_TYPE(widget);
}

/// A drop target for files and links: a file list (`text/uri-list`, local files and web links
/// alike) or plain text, copied.
static inline GtkDropTarget *fp_drop_target_new_for_links(void) {
    GtkDropTarget *target = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
    GType types[] = { GDK_TYPE_FILE_LIST, G_TYPE_STRING };
    gtk_drop_target_set_gtypes(target, types, 2);
    return target;
}

/// Whether a GValue holds a string (`G_VALUE_HOLDS_STRING` is a macro).
static inline gboolean fp_value_holds_string(const GValue *value) {
    return G_VALUE_HOLDS_STRING(value);
}

/// A search entry's placeholder (`gtk_search_entry_set_placeholder_text` is GTK 4.10+).
static inline void fp_search_entry_set_placeholder(GtkWidget *entry, const char *text) {
    g_object_set(entry, "placeholder-text", text, NULL);
}

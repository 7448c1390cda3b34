#pragma once
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/tag/tag.h>

// What Swift cannot import from GStreamer and GObject (macros, variadics), as small typed
// functions. Prefix: `fetchplay_`.

/// Stores `v` in `value`, already initialised to the property's type, when that type is an
/// integer, boolean, enum, flags or floating-point type. Returns FALSE for any other type.
static inline gboolean fetchplay_value_set_number(GValue *value, gint64 v, gdouble d, gboolean is_double) {
    switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(value))) {
    case G_TYPE_BOOLEAN: g_value_set_boolean(value, is_double ? d != 0 : v != 0); return TRUE;
    case G_TYPE_INT:     g_value_set_int(value, is_double ? (gint)d : (gint)v); return TRUE;
    case G_TYPE_UINT:    g_value_set_uint(value, is_double ? (guint)d : (guint)v); return TRUE;
    case G_TYPE_LONG:    g_value_set_long(value, is_double ? (glong)d : (glong)v); return TRUE;
    case G_TYPE_ULONG:   g_value_set_ulong(value, is_double ? (gulong)d : (gulong)v); return TRUE;
    case G_TYPE_INT64:   g_value_set_int64(value, is_double ? (gint64)d : v); return TRUE;
    case G_TYPE_UINT64:  g_value_set_uint64(value, is_double ? (guint64)d : (guint64)v); return TRUE;
    case G_TYPE_ENUM:    g_value_set_enum(value, is_double ? (gint)d : (gint)v); return TRUE;
    case G_TYPE_FLAGS:   g_value_set_flags(value, is_double ? (guint)d : (guint)v); return TRUE;
    case G_TYPE_FLOAT:   g_value_set_float(value, is_double ? (gfloat)d : (gfloat)v); return TRUE;
    case G_TYPE_DOUBLE:  g_value_set_double(value, is_double ? d : (gdouble)v); return TRUE;
    default: return FALSE;
    }
}

/// The GObject class of `object` (`G_OBJECT_GET_CLASS`).
static inline GObjectClass *fetchplay_object_get_class(gpointer object) {
    return G_OBJECT_GET_CLASS(object);
}

/// The name of an element's factory ("fakesink"), or NULL.
static inline const gchar *fetchplay_element_factory_name(GstElement *element) {
    GstElementFactory *factory = gst_element_get_factory(element);
    return factory ? GST_OBJECT_NAME(factory) : NULL;
}

/// Sets the offset of a buffer's first byte in the stream (`GST_BUFFER_OFFSET`).
static inline void fetchplay_buffer_set_offset(GstBuffer *buffer, guint64 offset) {
    GST_BUFFER_OFFSET(buffer) = offset;
}

/// An int property of `object` (`g_object_get` is variadic).
static inline gint fetchplay_object_get_int(gpointer object, const gchar *name) {
    gint value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// The language code of a playbin's audio stream `index` ("en", "fra"), or NULL; g_free it.
static inline gchar *fetchplay_playbin_audio_language(GstElement *playbin, gint index) {
    GstTagList *tags = NULL;
    gchar *code = NULL;
    g_signal_emit_by_name(playbin, "get-audio-tags", index, &tags);
    if (tags) {
        gst_tag_list_get_string(tags, GST_TAG_LANGUAGE_CODE, &code);
        gst_tag_list_unref(tags);
    }
    return code;
}

/// A flags property of `object` as its bits (`g_object_get` is variadic).
static inline guint fetchplay_object_get_flags(gpointer object, const gchar *name) {
    guint value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// The string tag `tag` (GST_TAG_LANGUAGE_CODE, GST_TAG_TITLE) of a playbin's text stream
/// `index`, or NULL; g_free it.
static inline gchar *fetchplay_playbin_text_tag(GstElement *playbin, gint index, const gchar *tag) {
    GstTagList *tags = NULL;
    gchar *text = NULL;
    g_signal_emit_by_name(playbin, "get-text-tags", index, &tags);
    if (tags) {
        gst_tag_list_get_string(tags, tag, &text);
        gst_tag_list_unref(tags);
    }
    return text;
}

/// Whether a playbin's text stream `index` comes from its `suburi` (a subtitle file) rather
/// than from the video: playbin sets `always-ok` on the selector pads of the subtitle file's
/// streams only.
static inline gboolean fetchplay_playbin_text_is_external(GstElement *playbin, gint index) {
    GstPad *pad = NULL;
    gboolean external = FALSE;
    g_signal_emit_by_name(playbin, "get-text-pad", index, &pad);
    if (pad) {
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(pad), "always-ok"))
            g_object_get(pad, "always-ok", &external, NULL);
        gst_object_unref(pad);
    }
    return external;
}

/// Adds the streaming tasks on `element`'s pads to `*all`, those started to `*running`.
static inline void fetchplay_element_count_tasks(GstElement *element, gint *running, gint *all) {
    GstIterator *pads = gst_element_iterate_pads(element);
    GValue pad_value = G_VALUE_INIT;
    gboolean done = FALSE;
    gint element_running = 0, element_all = 0;
    while (!done) {
        switch (gst_iterator_next(pads, &pad_value)) {
        case GST_ITERATOR_OK: {
            GstPad *pad = g_value_get_object(&pad_value);
            GstTask *task = NULL;
            GST_OBJECT_LOCK(pad);
            if (GST_PAD_TASK(pad)) task = gst_object_ref(GST_PAD_TASK(pad));
            GST_OBJECT_UNLOCK(pad);
            if (task) {
                element_all += 1;
                if (gst_task_get_state(task) == GST_TASK_STARTED) element_running += 1;
                gst_object_unref(task);
            }
            g_value_reset(&pad_value);
            break;
        }
        case GST_ITERATOR_RESYNC:
            gst_iterator_resync(pads);
            element_running = element_all = 0;
            break;
        default: done = TRUE; break;
        }
    }
    g_value_unset(&pad_value);
    gst_iterator_free(pads);
    *running += element_running;
    *all += element_all;
}

/// Counts the streaming tasks on the pads of every element inside `bin` (at any depth):
/// `*all` every task, `*running` those started (not paused or stopped).
static inline void fetchplay_bin_count_tasks(GstBin *bin, gint *running, gint *all) {
    GstIterator *elements = gst_bin_iterate_recurse(bin);
    GValue value = G_VALUE_INIT;
    gboolean done = FALSE;
    *running = *all = 0;
    while (!done) {
        switch (gst_iterator_next(elements, &value)) {
        case GST_ITERATOR_OK:
            fetchplay_element_count_tasks(g_value_get_object(&value), running, all);
            g_value_reset(&value);
            break;
        case GST_ITERATOR_RESYNC:
            gst_iterator_resync(elements);
            *running = *all = 0;
            break;
        default: done = TRUE; break;
        }
    }
    g_value_unset(&value);
    gst_iterator_free(elements);
}

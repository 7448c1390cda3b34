/* GTK's own GtkVideo playing one file, for bench/playback.sh: the reference the Fetchplay window
 * is compared with. Same window size as Fetchplay's default, the same renderer (from GSK_RENDERER).
 * Prints `gtkvideo-bench first_frame_ms=… frames=…` at the end of the stream and exits.
 *
 *   cc playback-gtkvideo.c $(pkg-config --cflags --libs gtk4) -o gtkvideo && ./gtkvideo FILE [W H]
 */
#include <gtk/gtk.h>
#include <stdlib.h>

static gint64 started;
static gint64 first_frame;
static guint frames;
static GMainLoop *loop;

/* Every new frame of a GtkMediaStream invalidates the paintable's contents. */
static void on_contents(GdkPaintable *paintable, gpointer data) {
    if (frames++ == 0) first_frame = g_get_monotonic_time();
}

static void on_ended(GObject *stream, GParamSpec *pspec, gpointer data) {
    if (!gtk_media_stream_get_ended(GTK_MEDIA_STREAM(stream))) return;
    g_print("gtkvideo-bench first_frame_ms=%.1f frames=%u\n",
            first_frame ? (first_frame - started) / 1000.0 : -1.0, frames);
    g_main_loop_quit(loop);
}

static void on_error(GObject *stream, GParamSpec *pspec, gpointer data) {
    const GError *error = gtk_media_stream_get_error(GTK_MEDIA_STREAM(stream));
    if (error) { g_printerr("gtkvideo: %s\n", error->message); g_main_loop_quit(loop); }
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 4) { g_printerr("usage: %s FILE [WIDTH HEIGHT]\n", argv[0]); return 2; }
    gtk_init();
    loop = g_main_loop_new(NULL, FALSE);
    GtkWidget *window = gtk_window_new();
    /* The size of Fetchplay's window, so both draw the video at the same size. */
    gtk_window_set_default_size(GTK_WINDOW(window), argc == 4 ? atoi(argv[2]) : 560, argc == 4 ? atoi(argv[3]) : 680);
    GtkWidget *video = gtk_video_new();
    gtk_window_set_child(GTK_WINDOW(window), video);
    gtk_window_present(GTK_WINDOW(window));

    GtkMediaStream *stream = gtk_media_file_new_for_filename(argv[1]);
    g_signal_connect(stream, "invalidate-contents", G_CALLBACK(on_contents), NULL);
    g_signal_connect(stream, "notify::ended", G_CALLBACK(on_ended), NULL);
    g_signal_connect(stream, "notify::error", G_CALLBACK(on_error), NULL);
    started = g_get_monotonic_time();
    gtk_video_set_media_stream(GTK_VIDEO(video), stream);
    gtk_media_stream_play(stream);
    g_main_loop_run(loop);
    return gtk_media_stream_get_error(stream) ? 1 : 0;
}

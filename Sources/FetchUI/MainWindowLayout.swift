import CGtk
import GLibSupport

/// The window's widgets, built once: a header bar and a stack with a "download" and a "video" page.
///
/// ```
/// GtkApplicationWindow
/// ├─ GtkHeaderBar            Open · title · menu
/// └─ GtkStack
///    ├─ "download"           entry + Start, inline message, ring, title, status, error, buttons
///    └─ "video"              a place for the video view (a placeholder until playback lands)
/// ```
/// Holds no state and no logic; `MainWindow` wires it.
@MainActor
struct MainWindowLayout {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    let window: Widget
    let stack: Widget
    let entry: Widget
    let urlMessage: Widget
    let titleLabel: Widget
    let statusLabel: Widget
    let errorBox: Widget
    let errorLabel: Widget
    let retryButton: Widget
    let playRevealer: Widget
    let videoPage: Widget
    let videoTitle: Widget
    let videoPlaceholder: Widget

    /// - Parameter library: the library pane, shown beside the download column (none when the
    ///   cache folder could not be opened).
    init(application: UnsafeMutablePointer<GtkApplication>, ring: Widget, library: Widget? = nil) {
        window = gtk_application_window_new(application)!
        gtk_window_set_title(window.as(GtkWindow.self), "Fetchplay")
        gtk_window_set_default_size(window.as(GtkWindow.self), library == nil ? 560 : 980, 680)
        gtk_window_set_icon_name(window.as(GtkWindow.self), "io.github.fetchplay.Fetchplay")
        gtk_widget_add_css_class(window, "fetchplay")

        gtk_window_set_titlebar(window.as(GtkWindow.self), Self.headerBar())

        // The download page.
        entry = gtk_entry_new()!
        gtk_widget_set_hexpand(entry, 1)
        gtk_entry_set_placeholder_text(entry.as(GtkEntry.self), "Paste a link to a video")
        gtk_entry_set_input_purpose(entry.as(GtkEntry.self), GTK_INPUT_PURPOSE_URL)
        gtk_widget_set_tooltip_text(entry, "The web address of a video (Ctrl+L)")
        fp_accessible_update_label(entry.opaque, "Video link")
        let start = Widgets.button("_Start", action: .start, tooltip: "Start downloading (Enter)",
                                   accessibleLabel: "Start download", classes: ["suggested-action"])
        let entryRow = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, [entry, start])

        urlMessage = Widgets.label("", classes: ["error", "caption", "url-message"])
        gtk_label_set_xalign(urlMessage.opaque, 0)
        gtk_label_set_wrap(urlMessage.opaque, 1)
        gtk_widget_set_visible(urlMessage, 0)
        fp_accessible_update_label(urlMessage.opaque, "Problem with the link")

        let entryColumn = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, classes: ["entry-column"],
                                      [entryRow, urlMessage])

        titleLabel = Widgets.label("Ready when you are", classes: ["title-2"])
        gtk_label_set_ellipsize(titleLabel.opaque, PANGO_ELLIPSIZE_MIDDLE)
        statusLabel = Widgets.label("", classes: ["dim-label", "numeric", "status"])
        gtk_label_set_ellipsize(statusLabel.opaque, PANGO_ELLIPSIZE_END)

        let errorIcon = gtk_image_new_from_icon_name("dialog-warning-symbolic")!
        gtk_widget_add_css_class(errorIcon, "error")
        gtk_widget_set_valign(errorIcon, GTK_ALIGN_START)
        errorLabel = Widgets.label("", wrap: true)
        gtk_label_set_justify(errorLabel.opaque, GTK_JUSTIFY_LEFT)
        gtk_label_set_xalign(errorLabel.opaque, 0)
        gtk_widget_set_hexpand(errorLabel, 1)
        let errorRow = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 10, [errorIcon, errorLabel])
        retryButton = Widgets.button("_Try Again", icon: "view-refresh-symbolic", action: .start,
                                     tooltip: "Try the download again", classes: ["pill"])
        gtk_widget_set_halign(retryButton, GTK_ALIGN_CENTER)
        errorBox = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, classes: ["error-box"], [errorRow, retryButton])
        gtk_widget_set_visible(errorBox, 0)

        let pause = Widgets.button("_Pause", icon: "media-playback-pause-symbolic", action: .pause,
                                   tooltip: "Pause the download (Space)", accessibleLabel: "Pause download",
                                   classes: ["pill"])
        let resume = Widgets.button("_Continue", icon: "folder-download-symbolic", action: .continue,
                                    tooltip: "Continue the download (Space)", accessibleLabel: "Continue download",
                                    classes: ["pill"])
        let play = Widgets.button("_Play", icon: "media-playback-start-symbolic", action: .play,
                                  tooltip: "Play the video", accessibleLabel: "Play video",
                                  classes: ["pill", "suggested-action"])
        playRevealer = gtk_revealer_new()!
        gtk_revealer_set_transition_type(playRevealer.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_LEFT)
        gtk_revealer_set_transition_duration(playRevealer.opaque, 300)
        gtk_revealer_set_child(playRevealer.opaque, play)
        let controls = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, classes: ["controls"],
                                   [pause, resume, playRevealer])
        gtk_widget_set_halign(controls, GTK_ALIGN_CENTER)

        gtk_widget_set_size_request(ring, 160, 160)
        let details = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [titleLabel, statusLabel])
        let downloadColumn = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 18, classes: ["download-page"],
                                       [entryColumn, ring, details, errorBox, controls])
        gtk_widget_set_hexpand(downloadColumn, 1)
        // The library sits beside the ring, so what is downloading and what is done show together.
        let downloadPage = library.map { library in
            gtk_widget_set_hexpand(library, 0)
            return Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 0,
                        [downloadColumn, gtk_separator_new(GTK_ORIENTATION_VERTICAL)!, library])
        } ?? downloadColumn

        // The video page: the playback issue puts its view here.
        videoTitle = Widgets.label("", classes: ["title-2"])
        gtk_label_set_ellipsize(videoTitle.opaque, PANGO_ELLIPSIZE_MIDDLE)
        let icon = gtk_image_new_from_icon_name("video-x-generic-symbolic")!
        gtk_image_set_pixel_size(icon.opaque, 96)
        gtk_widget_add_css_class(icon, "dim-label")
        let note = Widgets.label("Playback comes in a later version of Fetchplay.", classes: ["dim-label"], wrap: true)
        let back = Widgets.button("_Back to Download", icon: "go-previous-symbolic", action: .back,
                                  tooltip: "Back to the download (Alt+Left)", classes: ["pill"])
        gtk_widget_set_halign(back, GTK_ALIGN_CENTER)
        videoPlaceholder = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, classes: ["video-placeholder"],
                                       [icon, videoTitle, note, back])
        gtk_widget_set_valign(videoPlaceholder, GTK_ALIGN_CENTER)
        gtk_widget_set_vexpand(videoPlaceholder, 1)
        videoPage = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, [videoPlaceholder])

        stack = gtk_stack_new()!
        gtk_stack_set_transition_type(stack.opaque, GTK_STACK_TRANSITION_TYPE_CROSSFADE)
        gtk_stack_add_named(stack.opaque, downloadPage, "download")
        gtk_stack_add_named(stack.opaque, videoPage, "video")
        gtk_window_set_child(window.as(GtkWindow.self), stack)
    }

    private static func headerBar() -> Widget {
        let header = gtk_header_bar_new()!
        let open = Widgets.button(nil, icon: "document-open-symbolic", action: .open,
                                  tooltip: "Open a video file (Ctrl+O)", accessibleLabel: "Open video file")
        gtk_header_bar_pack_start(header.opaque, open)

        let menu = g_menu_new()!
        g_menu_append(menu, "_Open Video…", FetchplayAction.open.detailedName)
        g_menu_append(menu, "_Quit", FetchplayAction.quit.detailedName)
        let menuButton = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(menuButton.opaque, "open-menu-symbolic")
        gtk_menu_button_set_menu_model(menuButton.opaque, menu.as(GMenuModel.self))
        gtk_menu_button_set_primary(menuButton.opaque, 1)
        gtk_widget_set_tooltip_text(menuButton, "Main menu")
        fp_accessible_update_label(menuButton.opaque, "Main menu")
        g_object_unref(menu.rawObject)
        gtk_header_bar_pack_end(header.opaque, menuButton)
        return header
    }
}

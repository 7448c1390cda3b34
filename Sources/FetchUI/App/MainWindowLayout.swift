import CAdwaita
import CGtk
import FetchViewModel
import GLibSupport
import Localization

/// The window's widgets, built once: a header bar and a stack with a "download" and a "video" page.
///
/// ```
/// AdwApplicationWindow
/// └─ box (content)
///    ├─ AdwHeaderBar         Open · title · [Library toggle, narrow only] · menu (hidden in fullscreen)
///    └─ GtkStack
///       ├─ "download"        scrolled: entry + Start, inline message, ring, title, status,
///       │                    error + Try Again, Pause / Continue / Play; the library beside it
///       │                    (wide) or instead of it behind the header's toggle (narrow)
///       └─ "video"           the video view
/// ```
/// Holds no state and no logic; `MainWindow` wires it and `MainWindow+Layout` switches it
/// between wide and narrow.
@MainActor
struct MainWindowLayout {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// The window; `MainWindow`, which keeps this layout, holds its reference.
    let window: Widget
    /// The AdwHeaderBar at the top of the content (an AdwApplicationWindow has no titlebar).
    let headerBar: Widget
    let stack: Widget
    let entry: Widget
    let startButton: Widget
    let urlMessage: Widget
    let titleLabel: Widget
    let statusLabel: Widget
    /// What the selected download carries besides its link (cookies…), named, never shown.
    let contextLabel: Widget
    /// The link's folded Request section (cookies, Referer, User-Agent, headers).
    let request: RequestSection
    let errorBox: Widget
    let errorLabel: Widget
    let retryButton: Widget
    let controls: Widget
    let pauseButton: Widget
    let continueButton: Widget
    let playButton: Widget
    let playRevealer: Widget
    /// The download column (entry, ring, buttons) in its scrolled window.
    let downloadColumn: Widget
    /// The separator between the column and the library (wide only).
    let separator: Widget
    /// The library pane, if any; its `LibraryView` holds its reference.
    let library: Widget?
    /// The header's Library toggle, shown only when the window is narrow.
    let libraryToggle: Widget
    let videoPage: Widget
    private var owned: [OwnedWidget] = []

    /// - Parameters:
    ///   - library: the library pane, shown beside the download column (none when the cache
    ///     folder could not be opened).
    ///   - video: the video view, the whole video page.
    init(application: UnsafeMutablePointer<GtkApplication>, ring: Widget, library: Widget? = nil, video: Widget) {
        window = adw_application_window_new(application)!
        gtk_window_set_title(window.as(GtkWindow.self), "Fetchplay")
        gtk_window_set_default_size(window.as(GtkWindow.self), library == nil ? 560 : 980, 680)
        gtk_window_set_icon_name(window.as(GtkWindow.self), "io.github.fetchplay.Fetchplay")
        gtk_widget_add_css_class(window, "fetchplay")

        libraryToggle = gtk_toggle_button_new()!
        gtk_button_set_icon_name(libraryToggle.as(GtkButton.self), "view-list-symbolic")
        gtk_widget_set_tooltip_text(libraryToggle, tr("Library"))
        fp_accessible_update_label(libraryToggle.opaque, tr("Show the library"))
        gtk_widget_set_visible(libraryToggle, 0)
        headerBar = Self.headerBar(libraryToggle: libraryToggle)

        // The download page.
        entry = gtk_entry_new()!
        gtk_widget_set_hexpand(entry, 1)
        gtk_entry_set_placeholder_text(entry.as(GtkEntry.self), tr("Paste a link to a video"))
        gtk_entry_set_input_purpose(entry.as(GtkEntry.self), GTK_INPUT_PURPOSE_URL)
        gtk_widget_set_tooltip_text(entry, tr("The web address of a video (Ctrl+L)"))
        fp_accessible_update_label(entry.opaque, tr("Video link"))
        let start = Widgets.button(tr("_Start"), action: .start, tooltip: tr("Start downloading (Enter)"),
                                   accessibleLabel: tr("Start download"), classes: ["suggested-action"])
        startButton = start
        let entryRow = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, [entry, start])

        urlMessage = Widgets.label("", classes: ["error", "caption", "url-message"])
        gtk_label_set_xalign(urlMessage.opaque, 0)
        gtk_label_set_wrap(urlMessage.opaque, 1)
        gtk_widget_set_visible(urlMessage, 0)
        fp_accessible_update_label(urlMessage.opaque, tr("Problem with the link"))

        request = RequestSection()
        let entryColumn = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, classes: ["entry-column"],
                                      [entryRow, urlMessage, request.expander])

        titleLabel = Widgets.label(tr("Ready when you are"), classes: ["title-2"])
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
        retryButton = Widgets.button(tr("_Try Again"), icon: "view-refresh-symbolic", action: .start,
                                     tooltip: tr("Try the download again"), classes: ["pill"])
        gtk_widget_set_halign(retryButton, GTK_ALIGN_CENTER)
        errorBox = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, classes: ["error-box"], [errorRow, retryButton])
        gtk_widget_set_visible(errorBox, 0)

        let pause = Widgets.button(tr("_Pause"), icon: "media-playback-pause-symbolic", action: .pause,
                                   tooltip: tr("Pause the download (Space)"), accessibleLabel: tr("Pause download"),
                                   classes: ["pill"])
        let resume = Widgets.button(tr("_Continue"), icon: "folder-download-symbolic", action: .continue,
                                    tooltip: tr("Continue the download (Space)"), accessibleLabel: tr("Continue download"),
                                    classes: ["pill"])
        let play = Widgets.button(tr("_Play"), icon: "media-playback-start-symbolic", action: .play,
                                  tooltip: tr("Play the video"), accessibleLabel: tr("Play video"),
                                  classes: ["pill", "suggested-action"])
        playRevealer = gtk_revealer_new()!
        gtk_revealer_set_transition_type(playRevealer.opaque, GTK_REVEALER_TRANSITION_TYPE_SLIDE_LEFT)
        gtk_revealer_set_transition_duration(playRevealer.opaque, 300)
        gtk_revealer_set_child(playRevealer.opaque, play)
        pauseButton = pause
        continueButton = resume
        playButton = play
        controls = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, classes: ["controls"],
                               [pause, resume, playRevealer])
        gtk_widget_set_halign(controls, GTK_ALIGN_CENTER)

        gtk_widget_set_size_request(ring, 160, 160)
        contextLabel = Widgets.label("", classes: ["dim-label", "caption", "context"], wrap: true)
        gtk_widget_set_visible(contextLabel, 0)
        let details = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6, [titleLabel, statusLabel, contextLabel])
        let column = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 18, classes: ["download-page"],
                                 [entryColumn, ring, details, errorBox, controls])
        // Scrolls rather than forcing a minimum height on the window: a short window still
        // shows all of it.
        downloadColumn = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(downloadColumn.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_propagate_natural_height(downloadColumn.opaque, 1)
        gtk_scrolled_window_set_child(downloadColumn.opaque, column)
        gtk_widget_set_hexpand(downloadColumn, 1)
        gtk_widget_set_vexpand(downloadColumn, 1)
        separator = gtk_separator_new(GTK_ORIENTATION_VERTICAL)!
        self.library = library
        // The library sits beside the ring, so what is downloading and what is done show together.
        var children = [downloadColumn]
        if let library {
            gtk_widget_set_hexpand(library, 0)
            children += [separator, library]
        }
        let columns = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 0, children)
        // The wide layout's minimum (the column and the library side by side) must not become
        // the window's: a window manager would then never let the window be narrower (a phone,
        // a tiled half screen), so the narrow layout would never come. Its width is only asked
        // for, never forced; the frame drawn below the wide minimum is the last before
        // `MainWindow.updateLayout` goes narrow.
        let downloadPage = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(downloadPage.opaque, GTK_POLICY_EXTERNAL, GTK_POLICY_NEVER)
        gtk_scrolled_window_set_propagate_natural_width(downloadPage.opaque, 1)
        gtk_scrolled_window_set_propagate_natural_height(downloadPage.opaque, 1)
        gtk_scrolled_window_set_child(downloadPage.opaque, columns)

        videoPage = video

        stack = gtk_stack_new()!
        gtk_stack_set_transition_type(stack.opaque, GTK_STACK_TRANSITION_TYPE_CROSSFADE)
        // Each page asks only for its own size: the video bar's width never widens the
        // download page of a narrow window.
        gtk_stack_set_hhomogeneous(stack.opaque, 0)
        gtk_stack_set_vhomogeneous(stack.opaque, 0)
        gtk_stack_add_named(stack.opaque, downloadPage, "download")
        gtk_stack_add_named(stack.opaque, videoPage, "video")
        gtk_widget_set_vexpand(stack, 1)
        let content = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 0, [headerBar, stack])
        adw_application_window_set_content(window.as(AdwApplicationWindow.self), content)
        owned = OwnedWidget.keep(
            headerBar, stack, entry, startButton, urlMessage, titleLabel, statusLabel, contextLabel,
            errorBox, errorLabel, retryButton, controls, pauseButton, continueButton, playButton,
            playRevealer, downloadColumn, separator, libraryToggle, videoPage
        )
    }

    /// The primary menu, from the action table's `primaryMenu`.
    static func primaryMenu() -> OpaquePointer {
        let menu = g_menu_new()!
        for items in FetchplayAction.primaryMenu {
            let section = g_menu_new()!
            for action in items { g_menu_append(section, action.row.menuLabel, action.detailedName) }
            g_menu_append_section(menu, nil, section.as(GMenuModel.self))
            g_object_unref(section.rawObject)
        }
        return menu
    }

    private static func headerBar(libraryToggle: Widget) -> Widget {
        let header = adw_header_bar_new()!
        let open = Widgets.button(nil, icon: "document-open-symbolic", action: .open,
                                  tooltip: tr("Open a video file (Ctrl+O)"), accessibleLabel: tr("Open video file"))
        adw_header_bar_pack_start(header.opaque, open)

        let menu = primaryMenu()
        let menuButton = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(menuButton.opaque, "open-menu-symbolic")
        gtk_menu_button_set_menu_model(menuButton.opaque, menu.as(GMenuModel.self))
        gtk_menu_button_set_primary(menuButton.opaque, 1)
        gtk_widget_set_tooltip_text(menuButton, tr("Main menu"))
        fp_accessible_update_label(menuButton.opaque, tr("Main menu"))
        g_object_unref(menu.rawObject)
        adw_header_bar_pack_end(header.opaque, menuButton)
        adw_header_bar_pack_end(header.opaque, libraryToggle)
        return header
    }
}

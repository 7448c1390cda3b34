import CGtk
import FetchViewModel
import GLibSupport
import Localization
import ThreadKit

/// One row of the library list: thumbnail (or a small ring for a partial), name, details, for
/// a partial a Pause / Continue button, and a menu (its button, a right-click, a touch long press).
///
/// ```
/// GtkListItem's child: box
/// └─ [thumbnail | small ring] ─ title / detail ─ [pause or continue] ─ [⋮ menu]
/// ```
/// The button and the menu's items name the action table's row actions (`win.pause-item`, …)
/// with the row's URL as their target, so the window runs them as it runs every other action.
/// Recycled: the list view makes a few rows and binds each to the URL that scrolls into it
/// (`bind(url:)`); `update(_:)` puts that URL's `LibraryRowModel` on screen, changing only what
/// differs.
@MainActor
final class LibraryRow {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    private var connections: [SignalConnection] = []
    /// The row's widget, the list item's child; this object holds a reference to it.
    nonisolated(unsafe) let row: Widget
    private let ownedRow: OwnedWidget
    /// The URL the row shows now ("" while unbound).
    private(set) var url = ""
    private(set) var model: LibraryRowModel?
    let ring = RingView()
    private let thumbnailStack: Widget
    private let picture: Widget
    private let titleLabel: Widget
    private let detailLabel: Widget
    private let toggleButton: Widget
    private(set) var hasThumbnail = false

    let menuButton: Widget
    private var owned: [OwnedWidget] = []
    /// The row's menu: the row actions that apply (`LibraryRowModel.menuActions`), each with this
    /// row's URL as its target. Filled when it first opens, then kept in step while it shows.
    nonisolated(unsafe) private let menu = g_menu_new()!
    /// What `menu` holds now.
    private var menuShows: (url: String, actions: [FetchplayAction])?
    /// The action and target the button carries now.
    private var toggleShows: (action: FetchplayAction, url: String)?

    init() {

        picture = gtk_picture_new()!
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_COVER)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        let placeholder = gtk_image_new_from_icon_name("video-x-generic-symbolic")!
        gtk_image_set_pixel_size(placeholder.opaque, 24)
        gtk_widget_add_css_class(placeholder, "dim-label")
        gtk_drawing_area_set_content_width(ring.widget.as(GtkDrawingArea.self), 40)
        gtk_drawing_area_set_content_height(ring.widget.as(GtkDrawingArea.self), 40)
        gtk_widget_set_hexpand(ring.widget, 0)
        gtk_widget_set_vexpand(ring.widget, 0)
        gtk_widget_set_halign(ring.widget, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(ring.widget, GTK_ALIGN_CENTER)
        fp_accessible_update_label(ring.widget.opaque, tr("Download progress"))

        thumbnailStack = gtk_stack_new()!
        gtk_widget_add_css_class(thumbnailStack, "thumbnail")
        gtk_widget_set_overflow(thumbnailStack, GTK_OVERFLOW_HIDDEN)
        gtk_widget_set_size_request(thumbnailStack, 96, 54)
        gtk_widget_set_valign(thumbnailStack, GTK_ALIGN_CENTER)
        gtk_stack_add_named(thumbnailStack.opaque, placeholder, "icon")
        gtk_stack_add_named(thumbnailStack.opaque, picture, "picture")
        gtk_stack_add_named(thumbnailStack.opaque, ring.widget, "ring")

        titleLabel = Widgets.label("", classes: ["heading"])
        gtk_label_set_xalign(titleLabel.opaque, 0)
        gtk_label_set_ellipsize(titleLabel.opaque, PANGO_ELLIPSIZE_MIDDLE)
        detailLabel = Widgets.label("", classes: ["dim-label", "caption", "numeric"])
        gtk_label_set_xalign(detailLabel.opaque, 0)
        gtk_label_set_ellipsize(detailLabel.opaque, PANGO_ELLIPSIZE_END)
        let text = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 4, [titleLabel, detailLabel])
        gtk_widget_set_hexpand(text, 1)
        gtk_widget_set_valign(text, GTK_ALIGN_CENTER)

        toggleButton = gtk_button_new_from_icon_name("media-playback-pause-symbolic")!
        gtk_widget_add_css_class(toggleButton, "flat")
        gtk_widget_add_css_class(toggleButton, "circular")
        gtk_widget_set_valign(toggleButton, GTK_ALIGN_CENTER)
        gtk_widget_set_visible(toggleButton, 0)

        menuButton = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(menuButton.opaque, "view-more-symbolic")
        gtk_widget_add_css_class(menuButton, "flat")
        gtk_widget_set_valign(menuButton, GTK_ALIGN_CENTER)
        gtk_widget_set_tooltip_text(menuButton, tr("More"))
        fp_accessible_update_label(menuButton.opaque, tr("Video menu"))

        row = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, classes: ["library-row"],
                          [thumbnailStack, text, toggleButton, menuButton])
        ownedRow = OwnedWidget(row)
        installMenu()
        owned = OwnedWidget.keep(thumbnailStack, picture, titleLabel, detailLabel, toggleButton, menuButton)
    }

    deinit { g_object_unref(menu.rawObject) }

    /// The menu's popover is made when it first opens (a popover for each recycled row cost a
    /// few hundred kB a row, most never opened). A right-click or a long press on the row opens
    /// it too.
    private func installMenu() {
        gtk_menu_button_set_create_popup_func(menuButton.opaque, { button, data in
            // Called at every opening; the model (and with it the popover) is set the first time.
            guard gtk_menu_button_get_menu_model(button) == nil else { return }
            let box = CallbackBox<Weak<LibraryRow>>.from(data)
            nonisolated(unsafe) let button = button
            MainActor.assumeIsolated {
                guard let row = box.body.object else { return }
                row.fillMenu()
                gtk_menu_button_set_menu_model(button, row.menu.as(GMenuModel.self))
            }
        }, CallbackBox(Weak(self)).retainedPointer(), releaseBox)

        let rightClick = gtk_gesture_click_new()!
        gtk_gesture_single_set_button(rightClick.opaque, UInt32(GDK_BUTTON_SECONDARY))
        rightClick.connectPress("pressed") { [weak self] _ in self?.openMenu() }.store(in: &connections)
        gtk_widget_add_controller(row, rightClick.opaque)
        // A long press is the touch screen's right-click (touch only, as GTK and GNOME apps do:
        // with a mouse, a busy main loop could take a quick click for a long press).
        let longPress = gtk_gesture_long_press_new()!
        gtk_gesture_single_set_touch_only(longPress.opaque, 1)
        // Before the list's own click handling, which would otherwise take the press.
        gtk_event_controller_set_propagation_phase(longPress.opaque, GTK_PHASE_CAPTURE)
        longPress.connectPoint("pressed") { [weak self] _, _ in self?.openMenu() }.store(in: &connections)
        gtk_widget_add_controller(row, longPress.opaque)
    }

    /// Opens the row's menu (under its menu button).
    func openMenu() {
        gtk_menu_button_popup(menuButton.opaque)
    }

    /// Whether the row's menu shows now.
    var isMenuOpen: Bool {
        gtk_menu_button_get_popover(menuButton.opaque).map { gtk_widget_get_visible($0.as(GtkWidget.self)) != 0 } ?? false
    }

    /// Puts the actions that apply to the row in its menu, once the menu was opened: an open
    /// menu follows its model as it changes.
    private func fillMenu() {
        let actions = model?.menuActions ?? []
        if let shows = menuShows, shows.url == url, shows.actions == actions { return }
        menuShows = (url, actions)
        g_menu_remove_all(menu)
        for action in actions {
            let item = g_menu_item_new(action.row.menuLabel, nil)!
            g_menu_item_set_action_and_target_value(item, action.detailedName, g_variant_new_string(url))
            g_menu_append_item(menu, item)
            g_object_unref(item.rawObject)
        }
    }

    private func menuChanged() {
        if gtk_menu_button_get_menu_model(menuButton.opaque) != nil { fillMenu() }
    }

    /// Shows `url` from now on (its model follows with `update`); "" while the row is unused.
    func bind(url: String) {
        guard url != self.url else { return }
        self.url = url
        model = nil
        hasThumbnail = false
        gtk_picture_set_paintable(picture.opaque, nil)
        if isMenuOpen { gtk_menu_button_popdown(menuButton.opaque) }
        menuChanged()
    }

    func update(_ model: LibraryRowModel) {
        guard model != self.model else { return }
        self.model = model
        Widgets.setText(titleLabel, model.title)
        Widgets.setText(detailLabel, model.detail)
        // Cut with an ellipsis, the whole text is a hover away.
        Widgets.setTooltip(titleLabel, model.title)
        Widgets.setTooltip(detailLabel, model.detail)
        // TRANSLATORS: a library row read by a screen reader: the video's name, then its size and date.
        fp_accessible_update_label(row.opaque, String(format: tr("%1$@, %2$@"), model.title, model.detail))

        let page = model.isFinished ? (hasThumbnail ? "picture" : "icon") : "ring"
        gtk_stack_set_visible_child_name(thumbnailStack.opaque, page)
        ring.fraction = model.fraction
        ring.tone = switch model.activity {
        case .finished: .done
        case .downloading: .running
        case .failed: .failed
        case .waiting, .paused: .paused
        }

        Widgets.setVisible(toggleButton, !model.isFinished)
        let pauses = model.pauses
        gtk_button_set_icon_name(toggleButton.as(GtkButton.self),
                                 pauses ? "media-playback-pause-symbolic" : "folder-download-symbolic")
        if let action = model.toggleAction, toggleShows.map({ $0.action != action || $0.url != url }) ?? true {
            toggleShows = (action, url)
            // The target first: a name without its target would not match the action's type.
            gtk_actionable_set_action_target_value(toggleButton.opaque, g_variant_new_string(url))
            gtk_actionable_set_action_name(toggleButton.opaque, action.detailedName)
        }
        menuChanged()
        let tip = pauses ? tr("Pause this download") : tr("Continue this download")
        gtk_widget_set_tooltip_text(toggleButton, tip)
        fp_accessible_update_label(toggleButton.opaque, tip)
    }

    /// Shows the video's frame instead of the generic icon.
    func setThumbnail(_ texture: OpaquePointer) {
        gtk_picture_set_paintable(picture.opaque, texture)
        hasThumbnail = true
        if model?.isFinished == true { gtk_stack_set_visible_child_name(thumbnailStack.opaque, "picture") }
    }

    /// The row's title as it shows (tests).
    var shownTitle: String { String(cString: gtk_label_get_text(titleLabel.opaque)) }

    /// The button's tooltip, which says what it does now (tests).
    var toggleAction: String? {
        guard gtk_widget_get_visible(toggleButton) != 0 else { return nil }
        return gtk_widget_get_tooltip_text(toggleButton).map { String(cString: $0) }
    }

    /// Presses the row's button as a click would (tests).
    func pressToggle() { gtk_widget_activate(toggleButton) }
}

import CGtk
import FetchPlayer
import FetchViewModel
import GLibSupport
import Localization
import ThreadKit

/// The video page: frames drawn on black, with the controls over them.
///
/// ```
/// GtkOverlay .video-view              motion reveals the bars, double-click fullscreens
/// ├─ GtkPicture "picture"             the current frame (VideoPaintable), contain (letterboxed)
/// ├─ GtkSpinner                       while the first frame is prepared
/// ├─ error box                        the player's message when the file cannot play
/// ├─ resume banner                    "Resumed from 1:23" · Start Over
/// ├─ GtkRevealer → VideoControls.top
/// └─ GtkRevealer → VideoControls.bottom
/// ```
/// While `autoHide` is on (playing), the bars and the pointer hide after `hideDelay` without
/// motion. The view knows nothing about the player; `PlaybackController` drives it.
@MainActor
public final class VideoView {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    var connections: [SignalConnection] = []
    /// Milliseconds without pointer motion before the bars hide during playback.
    static let hideDelay: UInt32 = 2000
    /// Milliseconds the resume banner stays.
    static let bannerDelay: UInt32 = 8000

    /// The root widget, for the window's video page.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget
    /// The picture the frames are shown in, and its paintable (see VideoPaintable.swift).
    public let picture: UnsafeMutablePointer<GtkWidget>
    private let ownedPicture: OwnedWidget
    let paintable = VideoPaintable()
    let controls = VideoControls()
    private let spinner: Widget
    private let errorBox: Widget
    private let errorLabel: Widget
    private let banner: Widget
    private let bannerLabel: Widget
    private let topRevealer: Widget
    private let bottomRevealer: Widget
    private var owned: [OwnedWidget] = []

    /// Frames handed to the picture since the view was made.
    public private(set) var framesShown = 0
    /// Hands frames to the picture one per paint (made once the picture exists).
    private(set) var pacer: FramePacer!
    /// Frames replaced while they waited for a paint, since the view was made (bench statistics).
    public var framesReplaced: Int { pacer.replaced }
    /// The size of the last frame shown.
    public var frameSize: (width: Int, height: Int)? { currentFrame.map { ($0.width, $0.height) } }
    /// Told after each frame is handed to the picture (bench statistics).
    let framesShownObservers = Observers<Void>()
    /// The frame the picture paints.
    var currentFrame: VideoFrame? { paintable.frame }

    private let hideTimer = OneShotTimer(milliseconds: VideoView.hideDelay)
    private let bannerTimer = OneShotTimer(milliseconds: VideoView.bannerDelay)
    /// Shows the spinner once loading has lasted `spinnerDelay`.
    private let spinnerTimer = OneShotTimer(milliseconds: VideoView.spinnerDelay)
    /// A file that opens at once shows no spinner: one that flashes for a fifth of a second
    /// reads as a flicker, and under a software GL renderer its animation takes the CPU the
    /// decoder needs for the first frame.
    static let spinnerDelay: UInt32 = 400
    private var lastPointer: (x: Double, y: Double)?

    init() {
        VideoView.installStyle()
        // One paintable for every frame: a new frame only redraws the picture. It has no
        // intrinsic size, so the picture's natural size is 0x0 and frames never ask the window
        // to grow.
        picture = gtk_picture_new_for_paintable(paintable.paintable)!
        ownedPicture = OwnedWidget(picture)
        gtk_widget_set_hexpand(picture, 1)
        gtk_widget_set_vexpand(picture, 1)
        fp_accessible_update_label(picture.opaque, tr("Video"))
        // The picture holds the keyboard focus on the video page, so the page's keys reach it.
        gtk_widget_set_focusable(picture, 1)
        gtk_widget_add_css_class(picture, "video-picture")
        paintable.reserved = Self.barRoom

        spinner = gtk_spinner_new()!
        gtk_widget_set_size_request(spinner, 48, 48)
        Self.center(spinner)
        gtk_widget_set_visible(spinner, 0)

        let icon = gtk_image_new_from_icon_name("dialog-warning-symbolic")!
        gtk_image_set_pixel_size(icon.opaque, 64)
        errorLabel = Widgets.label("", classes: ["video-error-message"], wrap: true)
        gtk_label_set_max_width_chars(errorLabel.opaque, 48)
        gtk_label_set_selectable(errorLabel.opaque, 1)
        errorBox = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, classes: ["video-error"], [icon, errorLabel])
        Self.center(errorBox)
        gtk_widget_set_visible(errorBox, 0)

        bannerLabel = Widgets.label("")
        let startOver = Widgets.button(tr("_Start Over"), action: .startOver, tooltip: tr("Play from the beginning"))
        VideoControls.keepFocusOnVideo([startOver])
        banner = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 12, classes: ["video-bar", "video-banner"],
                             [bannerLabel, startOver])
        gtk_widget_set_halign(banner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(banner, GTK_ALIGN_START)
        gtk_widget_set_visible(banner, 0)

        topRevealer = Self.revealer(controls.top, valign: GTK_ALIGN_START)
        bottomRevealer = Self.revealer(controls.bottom, valign: GTK_ALIGN_END)

        widget = gtk_overlay_new()!
        gtk_widget_add_css_class(widget, "video-view")
        gtk_widget_set_hexpand(widget, 1)
        gtk_widget_set_vexpand(widget, 1)
        gtk_overlay_set_child(widget.opaque, picture)
        for child in [spinner, errorBox, topRevealer, banner, bottomRevealer] {
            gtk_overlay_add_overlay(widget.opaque, child)
        }
        ownedWidget = OwnedWidget(widget)
        installFramePath()
        installPointerHandling()
        pacer = FramePacer(widget: picture) { [weak self] frame in self?.present(frame) }
        owned = OwnedWidget.keep(spinner, errorBox, errorLabel, banner, bannerLabel, topRevealer, bottomRevealer)
    }


    // MARK: Frames

    /// Shows `frame` at the window's next paint that has not painted a frame yet (`FramePacer`).
    func show(_ frame: VideoFrame) {
        pacer.offer(frame)
    }

    /// The picture repaints from the frame's own bytes (no copy), replacing the previous one.
    private func present(_ frame: VideoFrame) {
        paintable.show(frame)
        framesShown += 1
        framesShownObservers.notify(())
    }

    /// Where the current frame is drawn, in the picture's coordinates (nil: none shown).
    var frameBounds: (x: Double, y: Double, width: Double, height: Double)? {
        guard let frame = paintable.frame else { return nil }
        let place = paintable.placement(of: frame, width: Double(gtk_widget_get_width(picture)),
                                        height: Double(gtk_widget_get_height(picture)))
        return (place.x, place.y, Double(frame.width) * place.scale, Double(frame.height) * place.scale)
    }

    /// The size in device pixels a frame can fill: the picture's, or before it is laid out
    /// (the page just appeared) its nearest laid-out ancestor's, or before the window's first
    /// layout (a file opened at start-up) the window's default size.
    var displaySize: (width: Int, height: Int)? {
        var widget: Widget? = picture
        while let current = widget {
            let width = gtk_widget_get_width(current), height = gtk_widget_get_height(current)
            if width > 0, height > 0 { return frameRoom(width, height, scale: gtk_widget_get_scale_factor(current)) }
            widget = gtk_widget_get_parent(current)
        }
        // Without it the first frame would be converted at the video's own size (1080p: 8 MB)
        // and the stream renegotiated a moment later, delaying the first frame.
        guard let window = gtk_widget_get_ancestor(picture, gtk_window_get_type()) else { return nil }
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(window.as(GtkWindow.self), &width, &height)
        guard width > 0, height > 0 else { return nil }
        return frameRoom(width, height, scale: gtk_widget_get_scale_factor(window))
    }

    /// The device pixels a frame fills in a `width` x `height` picture: without the bars' room.
    private func frameRoom(_ width: Int32, _ height: Int32, scale: Int32) -> (width: Int, height: Int) {
        let free = max(1, Double(height) - 2 * paintable.reserved)
        return (Int(width * scale), Int(free * Double(scale)))
    }

    /// Empties the picture (another file is loading).
    func clear(title: String) {
        pacer.reset()
        paintable.show(nil)
        Widgets.setText(controls.title, title)
        showError(nil)
        showBanner(nil)
    }

    // MARK: States

    func showLoading(_ loading: Bool) {
        guard loading else {
            spinnerTimer.cancel()
            Widgets.setVisible(spinner, false)
            gtk_spinner_stop(spinner.opaque)
            return
        }
        guard !spinnerTimer.isPending, gtk_widget_get_visible(spinner) == 0 else { return }
        spinnerTimer.start { [weak self] in
            guard let self else { return }
            Widgets.setVisible(spinner, true)
            gtk_spinner_start(spinner.opaque)
        }
    }

    /// The player's sentence when the file cannot play; nil hides it.
    func showError(_ message: String?) {
        if let message { Widgets.setText(errorLabel, message) }
        Widgets.setVisible(errorBox, message != nil)
    }

    /// The error sentence that shows, if any.
    public var errorMessage: String? {
        gtk_widget_get_visible(errorBox) != 0 ? String(cString: gtk_label_get_text(errorLabel.opaque)) : nil
    }

    /// "Resumed from 1:23" with Start Over for a few seconds; nil hides it.
    func showBanner(_ text: String?) {
        bannerTimer.cancel()
        if let text { Widgets.setText(bannerLabel, text) }
        Widgets.setVisible(banner, text != nil)
        guard text != nil else { return }
        bannerTimer.start { [weak self] in self?.showBanner(nil) }
    }

    /// The resume banner's text while it shows.
    public var bannerText: String? {
        gtk_widget_get_visible(banner) != 0 ? String(cString: gtk_label_get_text(bannerLabel.opaque)) : nil
    }

    /// Gives the keyboard focus to the video: Space, the arrows, M and F then reach the page's
    /// shortcuts, never a button elsewhere in the window.
    func focus() {
        gtk_widget_grab_focus(picture)
    }

    /// In a window the frame sits between the bars, so bars at rest never cover it: the picture
    /// keeps this much free above and below it (black). In fullscreen the frame takes the whole
    /// screen and the bars hide while nothing moves.
    static let barRoom = 52.0

    /// Fullscreen: the picture goes edge to edge.
    func setFullscreen(_ fullscreen: Bool) {
        if fullscreen { gtk_widget_add_css_class(widget, "fullscreen") } else { gtk_widget_remove_css_class(widget, "fullscreen") }
        paintable.reserved = fullscreen ? 0 : Self.barRoom
    }

    // MARK: Showing and hiding the bars

    /// Whether the bars hide by themselves after a while without motion (during playback).
    var autoHide = false {
        didSet {
            guard autoHide != oldValue else { return }
            revealBars()
            if autoHide { scheduleHide() }
        }
    }

    private func installPointerHandling() {
        let motion = gtk_event_controller_motion_new()!
        motion.connectPoint("motion") { [weak self] x, y in self?.pointerMoved(x: x, y: y) }.store(in: &connections)
        gtk_widget_add_controller(widget, motion)

        let click = gtk_gesture_click_new()!
        click.connectPress("pressed") { [weak self] presses in
            self?.focus()
            // The window's action, as the F key and the fullscreen button do.
            if presses == 2, let picture = self?.picture {
                gtk_widget_activate_action_variant(picture, FetchplayAction.fullscreen.detailedName, nil)
            }
        }.store(in: &connections)
        gtk_widget_add_controller(picture, click.opaque)
    }

    private func pointerMoved(x: Double, y: Double) {
        // X11 repeats the last position after layout changes; only real motion counts.
        if let last = lastPointer, abs(last.x - x) < 1, abs(last.y - y) < 1 { return }
        lastPointer = (x, y)
        revealBars()
        if autoHide { scheduleHide() }
    }

    func revealBars() {
        hideTimer.cancel()
        for revealer in [topRevealer, bottomRevealer] where gtk_revealer_get_reveal_child(revealer.opaque) == 0 {
            gtk_revealer_set_reveal_child(revealer.opaque, 1)
        }
        gtk_widget_set_cursor(widget, nil)
    }

    private func scheduleHide() {
        hideTimer.start { [weak self] in self?.hideBarsIfIdle() }
    }

    /// Hides the bars unless the pointer rests on them or the seek bar is held.
    private func hideBarsIfIdle() {
        guard autoHide else { return }
        let hovered = [controls.top, controls.bottom].contains {
            gtk_widget_get_state_flags($0).rawValue & GTK_STATE_FLAG_PRELIGHT.rawValue != 0
        }
        if hovered || controls.isDragging { return scheduleHide() }
        for revealer in [topRevealer, bottomRevealer] { gtk_revealer_set_reveal_child(revealer.opaque, 0) }
        gtk_widget_set_cursor_from_name(widget, "none")
    }

    /// Stops the timers (the view is going away or hidden).
    func stopTimers() {
        hideTimer.cancel()
        spinnerTimer.cancel()
        showBanner(nil)
    }

    private static func revealer(_ child: Widget, valign: GtkAlign) -> Widget {
        let revealer = gtk_revealer_new()!
        gtk_revealer_set_transition_type(revealer.opaque, GTK_REVEALER_TRANSITION_TYPE_CROSSFADE)
        gtk_revealer_set_transition_duration(revealer.opaque, 250)
        gtk_revealer_set_child(revealer.opaque, child)
        gtk_revealer_set_reveal_child(revealer.opaque, 1)
        gtk_widget_set_valign(revealer, valign)
        return revealer
    }

    private static func center(_ widget: Widget) {
        gtk_widget_set_halign(widget, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(widget, GTK_ALIGN_CENTER)
    }
}

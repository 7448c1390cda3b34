import CGtk
import FetchPlayer
import FetchViewModel
import GLibSupport
import Localization

/// The bars over the video: back and title on top; play/pause, the seek bar with position and
/// duration, speed, mute, volume and fullscreen at the bottom.
///
/// Only widgets: buttons carry their actions, and `PlaybackController` sets what they show
/// through the setters here. The seek bar's and the volume slider's changes go to the
/// controller through its signal handlers.
@MainActor
final class VideoControls {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    let top: Widget
    let bottom: Widget
    let title: Widget
    let playButton: Widget
    let seekBar: Widget
    let positionLabel: Widget
    let durationLabel: Widget
    let muteButton: Widget
    let volume: Widget
    let fullscreenButton: Widget
    /// The playback speed, one of `rates` (a drop-down; `[` and `]` step through it too).
    let speed: Widget

    /// The audio track, when the video has more than one (hidden otherwise).
    let audio: Widget
    /// Subtitles: Off, then the video's tracks (hidden when it has none).
    let subtitles: Widget
    private var owned: [OwnedWidget] = []
    /// The downloaded parts under the seek bar, while the video still downloads.
    let downloadedParts: DownloadedPartsView

    /// The speeds offered, slowest first.
    static let rates: [Double] = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]

    init() {
        let back = Widgets.button(nil, icon: "go-previous-symbolic", action: .back,
                                  tooltip: tr("Back (Alt+Left)"), accessibleLabel: tr("Back to the download"))
        title = Widgets.label("", classes: ["video-title"])
        gtk_label_set_ellipsize(title.opaque, PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_set_hexpand(title, 1)
        gtk_label_set_xalign(title.opaque, 0)
        top = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, classes: ["video-bar", "video-top"], [back, title])
        gtk_widget_set_valign(top, GTK_ALIGN_START)

        playButton = Widgets.button(nil, icon: "media-playback-start-symbolic", action: .togglePlayback,
                                    tooltip: tr("Play (Space)"), accessibleLabel: tr("Play"))
        positionLabel = Widgets.label("0:00", classes: ["numeric", "video-time"])
        durationLabel = Widgets.label("0:00", classes: ["numeric", "video-time", "dim-label"])
        seekBar = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 1)!
        gtk_scale_set_draw_value(seekBar.as(GtkScale.self), 0)
        gtk_widget_set_hexpand(seekBar, 1)
        gtk_widget_set_tooltip_text(seekBar, tr("Position (Left and Right move 5 seconds)"))
        fp_accessible_update_label(seekBar.opaque, tr("Position"))
        downloadedParts = DownloadedPartsView(seekBar: seekBar)

        muteButton = Widgets.button(nil, icon: "audio-volume-high-symbolic", action: .mute,
                                    tooltip: tr("Mute (M)"), accessibleLabel: tr("Mute"))
        volume = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 0.05)!
        gtk_scale_set_draw_value(volume.as(GtkScale.self), 0)
        gtk_widget_set_size_request(volume, 96, -1)
        gtk_range_set_value(volume.as(GtkRange.self), 1)
        gtk_widget_set_tooltip_text(volume, tr("Volume (Up and Down)"))
        fp_accessible_update_label(volume.opaque, tr("Volume"))
        speed = Self.speedDropDown()
        audio = gtk_drop_down_new(nil, nil)!
        gtk_widget_set_tooltip_text(audio, tr("Audio track"))
        fp_accessible_update_label(audio.opaque, tr("Audio track"))
        gtk_widget_set_valign(audio, GTK_ALIGN_CENTER)
        gtk_widget_set_visible(audio, 0)
        subtitles = gtk_drop_down_new(nil, nil)!
        gtk_widget_set_tooltip_text(subtitles, tr("Subtitles"))
        fp_accessible_update_label(subtitles.opaque, tr("Subtitles"))
        gtk_widget_set_valign(subtitles, GTK_ALIGN_CENTER)
        gtk_widget_set_visible(subtitles, 0)
        fullscreenButton = Widgets.button(nil, icon: "view-fullscreen-symbolic", action: .fullscreen,
                                          tooltip: tr("Fullscreen (F)"), accessibleLabel: tr("Fullscreen"))
        bottom = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 6, classes: ["video-bar", "video-bottom"], [
            playButton, positionLabel, downloadedParts.widget, durationLabel, subtitles, audio, speed, muteButton, volume, fullscreenButton,
        ])
        gtk_widget_set_valign(bottom, GTK_ALIGN_END)
        Self.keepFocusOnVideo([back, playButton, seekBar, muteButton, volume, fullscreenButton])
        owned = OwnedWidget.keep(
            top, bottom, title, playButton, seekBar, positionLabel, durationLabel, muteButton, volume,
            fullscreenButton, speed, audio, subtitles
        )
    }

    /// Narrow windows: the volume slider goes (Up and Down and the mute button stay), so the
    /// bar fits a phone-sized window.
    func setCompact(_ compact: Bool) {
        Widgets.setVisible(volume, !compact)
    }

    /// Clicking these leaves the keyboard focus on the video, so Space still toggles playback
    /// (instead of pressing the last button clicked again); Tab still reaches them.
    static func keepFocusOnVideo(_ widgets: [Widget]) {
        for widget in widgets { gtk_widget_set_focus_on_click(widget, 0) }
    }

    /// The seek bar is being dragged (GtkRange marks its slider grab with the `dragging` class).
    var isDragging: Bool { gtk_widget_has_css_class(seekBar, "dragging") != 0 }

    func showPlaying(_ playing: Bool) {
        gtk_button_set_icon_name(playButton.as(GtkButton.self),
                                 playing ? "media-playback-pause-symbolic" : "media-playback-start-symbolic")
        gtk_widget_set_tooltip_text(playButton, playing ? tr("Pause (Space)") : tr("Play (Space)"))
        fp_accessible_update_label(playButton.opaque, playing ? tr("Pause") : tr("Play"))
    }

    /// The parts of the video on disk as fractions (0…1) while it downloads; nil when whole.
    func showDownloaded(_ parts: [ClosedRange<Double>]?) {
        downloadedParts.show(parts)
    }

    /// Position and duration in seconds; the seek bar keeps its value while dragged.
    func showTime(position: Double, duration: Double?) {
        let upper = max(duration ?? 0, position, 0.001)
        let adjustment = gtk_range_get_adjustment(seekBar.as(GtkRange.self))
        if gtk_adjustment_get_upper(adjustment) != upper { gtk_adjustment_set_upper(adjustment, upper) }
        let shown = isDragging ? gtk_range_get_value(seekBar.as(GtkRange.self)) : position
        if !isDragging, gtk_range_get_value(seekBar.as(GtkRange.self)) != position { gtk_range_set_value(seekBar.as(GtkRange.self), position) }
        Widgets.setText(positionLabel, PlaybackTime.string(shown))
        Widgets.setText(durationLabel, duration.map(PlaybackTime.string) ?? "--:--")
        fp_accessible_update_value(seekBar.opaque, 0, upper, shown,
                                   PlaybackTime.spoken(position: shown, duration: duration))
    }

    func showVolume(_ level: Double, muted: Bool) {
        if gtk_range_get_value(volume.as(GtkRange.self)) != level { gtk_range_set_value(volume.as(GtkRange.self), level) }
        let icon = muted || level == 0 ? "audio-volume-muted-symbolic"
            : level < 0.34 ? "audio-volume-low-symbolic"
            : level < 0.67 ? "audio-volume-medium-symbolic" : "audio-volume-high-symbolic"
        gtk_button_set_icon_name(muteButton.as(GtkButton.self), icon)
        gtk_widget_set_tooltip_text(muteButton, muted ? tr("Unmute (M)") : tr("Mute (M)"))
        fp_accessible_update_label(muteButton.opaque, muted ? tr("Unmute") : tr("Mute"))
    }

    /// The speed the drop-down selects; nil when the index is outside the list.
    var selectedRate: Double? {
        let index = Int(gtk_drop_down_get_selected(speed.opaque))
        return Self.rates.indices.contains(index) ? Self.rates[index] : nil
    }

    func showRate(_ rate: Double) {
        guard let index = Self.rates.firstIndex(where: { abs($0 - rate) < 0.01 }),
              gtk_drop_down_get_selected(speed.opaque) != UInt32(index) else { return }
        gtk_drop_down_set_selected(speed.opaque, UInt32(index))
    }

    /// The audio tracks by name ("English", "Track 2"), `selected` chosen; shown only for two or more.
    func showAudioTracks(_ names: [String], selected: Int?) {
        Self.fill(audio, with: names, selected: selected)
        Widgets.setVisible(audio, names.count > 1)
    }

    /// The audio track the drop-down selects; nil when none is.
    var selectedAudioTrack: Int? { Self.selection(of: audio) }

    /// The subtitle tracks by name, after "Off"; `selected` nil for off. Shown when there are any.
    func showSubtitles(_ names: [String], selected: Int?) {
        Self.fill(subtitles, with: [tr("Off")] + names, selected: selected.map { $0 + 1 } ?? 0)
        Widgets.setVisible(subtitles, !names.isEmpty)
    }

    /// The subtitle track the drop-down selects: `.some(nil)` for Off, nil when nothing is.
    var selectedSubtitle: Int?? { Self.selection(of: subtitles).map { $0 == 0 ? nil : $0 - 1 } }

    /// A model is replaced only when its names change. The player tells of a new track from
    /// inside the drop-down's own "selected" notification (a choice made there), and a model
    /// replaced then frees the selection GTK is still notifying from.
    private static func fill(_ dropDown: Widget, with names: [String], selected: Int?) {
        if names != self.names(in: dropDown) {
            let list = gtk_string_list_new(nil)!
            for name in names { gtk_string_list_append(list, name) }
            gtk_drop_down_set_model(dropDown.opaque, list.opaque)
            g_object_unref(list.rawObject)
        }
        if let selected, gtk_drop_down_get_selected(dropDown.opaque) != UInt32(selected) {
            gtk_drop_down_set_selected(dropDown.opaque, UInt32(selected))
        }
    }

    /// The strings of a drop-down's string list; empty for no model.
    private static func names(in dropDown: Widget) -> [String] {
        guard let model = gtk_drop_down_get_model(dropDown.opaque) else { return [] }
        let list: OpaquePointer = model.opaque
        return (0..<g_list_model_get_n_items(model)).map { index in
            gtk_string_list_get_string(list, index).map { String(cString: $0) } ?? ""
        }
    }

    private static func selection(of dropDown: Widget) -> Int? {
        let index = gtk_drop_down_get_selected(dropDown.opaque)
        return index == UInt32(GTK_INVALID_LIST_POSITION) ? nil : Int(index)
    }

    private static func speedDropDown() -> Widget {
        let names = rates.map { g_strdup(PlaybackTime.rate($0)) }
        defer { names.forEach { g_free($0) } }
        let list = (names + [nil]).map { UnsafePointer($0) }
        let dropDown = list.withUnsafeBufferPointer { gtk_drop_down_new_from_strings($0.baseAddress)! }
        gtk_drop_down_set_selected(dropDown.opaque, UInt32(rates.firstIndex(of: 1)!))
        gtk_widget_set_tooltip_text(dropDown, tr("Playback speed ([ and ])"))
        fp_accessible_update_label(dropDown.opaque, tr("Playback speed"))
        gtk_widget_set_valign(dropDown, GTK_ALIGN_CENTER)
        return dropDown
    }

    func showFullscreen(_ fullscreen: Bool) {
        gtk_button_set_icon_name(fullscreenButton.as(GtkButton.self),
                                 fullscreen ? "view-restore-symbolic" : "view-fullscreen-symbolic")
        gtk_widget_set_tooltip_text(fullscreenButton, fullscreen ? tr("Leave Fullscreen (Esc)") : tr("Fullscreen (F)"))
        fp_accessible_update_label(fullscreenButton.opaque, fullscreen ? tr("Leave fullscreen") : tr("Fullscreen"))
        // The button toggles: in fullscreen it carries the action that leaves.
        gtk_actionable_set_action_name(fullscreenButton.opaque,
                                       (fullscreen ? FetchplayAction.leaveFullscreen : .fullscreen).detailedName)
    }
}

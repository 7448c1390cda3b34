import CAdwaita
import CGtk
import FetchCore
import FetchViewModel
import Foundation
import GLibSupport
import Localization

/// Asks which of the videos a web page offers to save (a `ChoiceDialog`): one row per video in
/// page order (its title; file or stream, and its length when the page says), each with a check
/// button, all on to begin with, and under them the "Audio only" switch. Arrows move between
/// rows, Space turns one on or off, Enter downloads the ones on, Escape cancels; Download is off
/// while none is.
///
/// `done` runs once, on the main thread: with the numbers (from 1) of the videos on, or with
/// none when cancelled, and whether only their audio is saved.
@MainActor
final class PageVideoChooser: ChoiceDialog<[Int]> {
    /// The list of rows, and one row and check button per video, in page order.
    let list: UnsafeMutablePointer<GtkWidget>
    let rows: [UnsafeMutablePointer<GtkWidget>]
    let checks: [UnsafeMutablePointer<GtkWidget>]
    /// Videos listed without a scroller: five rows of two lines fit a phone's height with the switch.
    static let rowsShownWhole = 5

    init(over parent: UnsafeMutablePointer<GtkWidget>, finding: PageFinding,
         done: @escaping @MainActor ([Int], _ audioOnly: Bool) -> Void) {
        let list = gtk_list_box_new()!
        self.list = list
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        gtk_widget_add_css_class(list, "boxed-list")
        fp_accessible_update_label(list.opaque, tr("Videos on the page"))
        var rows: [UnsafeMutablePointer<GtkWidget>] = [], checks: [UnsafeMutablePointer<GtkWidget>] = []
        for index in finding.videos.indices {
            let row = adw_action_row_new()!
            // Titles come from the page: never read as markup.
            adw_preferences_row_set_use_markup(row.as(AdwPreferencesRow.self), 0)
            adw_preferences_row_set_title(row.as(AdwPreferencesRow.self), finding.title(of: index))
            adw_action_row_set_subtitle(row.as(AdwActionRow.self), Self.details(of: finding.videos[index]))
            adw_action_row_set_title_lines(row.as(AdwActionRow.self), 2)
            let check = gtk_check_button_new()!
            gtk_check_button_set_active(check.as(GtkCheckButton.self), 1)
            gtk_widget_set_valign(check, GTK_ALIGN_CENTER)
            // The row speaks for it; the check button itself takes no focus of its own.
            gtk_widget_set_focusable(check, 0)
            adw_action_row_add_prefix(row.as(AdwActionRow.self), check)
            adw_action_row_set_activatable_widget(row.as(AdwActionRow.self), check)
            gtk_list_box_append(list.opaque, row)
            rows.append(row)
            checks.append(check)
        }
        self.rows = rows
        self.checks = checks
        // A few rows are shown whole; a longer list scrolls. (A scroller measures rows whose titles
        // wrap as if they did not, and cut the last row of a short list in half.)
        var videos = list
        if finding.videos.count > Self.rowsShownWhole {
            let scroller = gtk_scrolled_window_new()!
            gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
            gtk_scrolled_window_set_propagate_natural_height(scroller.opaque, 1)
            gtk_scrolled_window_set_max_content_height(scroller.opaque, 360)
            gtk_scrolled_window_set_child(scroller.opaque, list)
            videos = scroller
        }
        let count = finding.videos.count
        // TRANSLATORS: %1$ld is how many videos the page offers (2 or more).
        let heading = String(format: trn("This page offers %1$ld video", "This page offers %1$ld videos", count), count)
        // The numbers (from 1) of the videos whose check button is on.
        let chosen: @MainActor () -> [Int] = { checks.indices.filter { gtk_check_button_get_active(checks[$0].as(GtkCheckButton.self)) != 0 }.map { $0 + 1 } }
        super.init(over: parent, title: tr("Choose Videos"), heading: heading, body: finding.title ?? LinkTitle.of(finding.page),
                   choices: videos, focusable: rows, chosen: chosen, cancelled: [], done: done)
        for check in checks {
            check.connect("toggled") { [weak self] in self?.update() }.store(in: &connections)
        }
    }

    /// "Stream · 12:30", "File".
    static func details(of video: PageVideo) -> String {
        let kind = switch video.kind {
        case .stream: tr("Stream (HLS or DASH)")
        case .file: tr("Video file")
        // A playlist's entry or a site's video: yt-dlp reads it when its turn comes.
        case .site: tr("Video on a site")
        }
        guard let seconds = video.duration else { return kind }
        // TRANSLATORS: a video's kind and its length: "Video file · 3 min 5 s".
        return String(format: tr("%1$@ · %2$@"), kind, TimeFormat.string(seconds))
    }

    /// Download only while a video is on.
    private func update() {
        adw_message_dialog_set_response_enabled(window.as(AdwMessageDialog.self), Self.download, chosen.isEmpty ? 0 : 1)
    }
}

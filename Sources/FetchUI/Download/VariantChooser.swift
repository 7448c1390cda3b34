import CAdwaita
import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization

/// Asks which variant of an HLS or DASH link to save before it starts (a `ChoiceDialog`): one
/// choice per variant by resolution, the best chosen already, and under them the "Audio only"
/// switch. Enter downloads, Escape cancels.
///
/// `done` runs once, on the main thread: with the chosen variant, or nil when cancelled, and
/// whether only its audio is saved.
@MainActor
final class VariantChooser: ChoiceDialog<StreamVariant?> {
    /// One check button per variant, in the order given (best first).
    let choices: [UnsafeMutablePointer<GtkWidget>]

    /// - Parameters:
    ///   - variants: best first; the first is chosen to begin with.
    ///   - title: the video's name, for people.
    init(over parent: UnsafeMutablePointer<GtkWidget>, title: String, variants: [StreamVariant],
         done: @escaping @MainActor (StreamVariant?, _ audioOnly: Bool) -> Void) {
        var choices: [UnsafeMutablePointer<GtkWidget>] = []
        for variant in variants {
            let button = gtk_check_button_new_with_label(Self.label(of: variant))!
            if let first = choices.first { gtk_check_button_set_group(button.as(GtkCheckButton.self), first.as(GtkCheckButton.self)) }
            choices.append(button)
        }
        self.choices = choices
        if let best = choices.first { gtk_check_button_set_active(best.as(GtkCheckButton.self), 1) }
        let list = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 4, choices)
        fp_accessible_update_label(list.opaque, tr("Quality"))
        // The variant whose button is on.
        let chosen: @MainActor () -> StreamVariant? = {
            choices.firstIndex { gtk_check_button_get_active($0.as(GtkCheckButton.self)) != 0 }.map { variants[$0] }
        }
        super.init(over: parent, title: tr("Choose a Quality"), heading: tr("Which quality should Fetchplay save?"), body: title,
                   choices: list, focusable: choices, chosen: chosen, cancelled: nil, done: done)
    }

    /// "1080p · 5.5 Mbit/s"; a variant without a resolution by its rate alone.
    static func label(of variant: StreamVariant) -> String {
        let rate = variant.bandwidth >= 1_000_000
            ? String(format: tr("%1$.1f Mbit/s"), Double(variant.bandwidth) / 1_000_000)
            : String(format: tr("%1$d kbit/s"), variant.bandwidth / 1000)
        guard let height = variant.height else { return rate }
        // TRANSLATORS: a video quality to choose: its height in lines ("1080p") and its bit rate.
        return String(format: tr("%1$dp · %2$@"), height, rate)
    }
}

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
final class VariantChooser {
    /// The signal handlers it connected: they are disconnected when it goes.
    private var connections: [SignalConnection] = []
    /// The AdwMessageDialog (a GtkWindow).
    let window: UnsafeMutablePointer<GtkWidget>
    /// A reference to each widget above, taken at the end of `init`: none of these pointers
    /// outlives its widget, whatever its parent does.
    private var owned: [OwnedWidget] = []
    /// One check button per variant, in the order given (best first).
    let choices: [UnsafeMutablePointer<GtkWidget>]
    /// The dialog's responses.
    static let download = ChoiceDialog.download, cancel = ChoiceDialog.cancel
    /// The "Audio only" switch.
    let audioOnly: UnsafeMutablePointer<GtkWidget>
    private let variants: [StreamVariant]
    private var done: (@MainActor (StreamVariant?, _ audioOnly: Bool) -> Void)?

    /// - Parameters:
    ///   - variants: best first; the first is chosen to begin with.
    ///   - title: the video's name, for people.
    init(over parent: UnsafeMutablePointer<GtkWidget>, title: String, variants: [StreamVariant],
         done: @escaping @MainActor (StreamVariant?, _ audioOnly: Bool) -> Void) {
        self.variants = variants
        self.done = done
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
        let audio = ChoiceDialog.audioOnlySwitch()
        audioOnly = audio.toggle
        window = ChoiceDialog.make(over: parent, title: tr("Choose a Quality"), heading: tr("Which quality should Fetchplay save?"),
                                   body: title, choices: Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, [list, audio.list]))
        connections = ChoiceDialog.connect(window, enter: { [weak self] in self?.enterOnChoice() ?? false }) { [weak self] id in
            // The dialog closes itself after a response.
            self?.finish(id == Self.download ? self?.chosen : nil, close: false)
        }
        owned = OwnedWidget.keep(window)
    }

    /// The button of `response` (tests click it).
    func button(_ response: String) -> UnsafeMutablePointer<GtkWidget>? { ChoiceDialog.button(response, in: window) }

    /// Shows the window with the focus on the chosen variant.
    func present() {
        gtk_window_present(window.as(GtkWindow.self))
        if let best = choices.first { gtk_widget_grab_focus(best) }
    }

    /// Enter with the focus on a choice: downloads the chosen variant.
    private func enterOnChoice() -> Bool {
        guard choices.contains(where: { Widgets.focusIsIn(window, $0) }) else { return false }
        finish(chosen)
        return true
    }

    /// The variant whose button is on.
    var chosen: StreamVariant? {
        choices.firstIndex { gtk_check_button_get_active($0.as(GtkCheckButton.self)) != 0 }.map { variants[$0] }
    }

    var isShown: Bool { done != nil && gtk_widget_get_visible(window) != 0 }

    private func finish(_ variant: StreamVariant?, close: Bool = true) {
        guard let done else { return }
        self.done = nil
        let audioOnly = ChoiceDialog.isOn(audioOnly)
        if close { gtk_window_destroy(window.as(GtkWindow.self)) }
        done(variant, audioOnly)
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

import CAdwaita
import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization

/// Asks which variant of an HLS link to save before it starts: an `AdwMessageDialog` over the
/// main window, one choice per variant by resolution (the best chosen already), Cancel and
/// Download. Enter downloads, Escape or closing the dialog cancels.
///
/// `done` runs once, on the main thread: with the chosen variant, or nil when cancelled.
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
    static let download = "download", cancel = "cancel"
    private let variants: [HLSVariant]
    private var done: (@MainActor (HLSVariant?) -> Void)?

    /// - Parameters:
    ///   - variants: best first; the first is chosen to begin with.
    ///   - title: the video's name, for people.
    init(over parent: UnsafeMutablePointer<GtkWidget>, title: String, variants: [HLSVariant],
         done: @escaping @MainActor (HLSVariant?) -> Void) {
        self.variants = variants
        self.done = done
        window = adw_message_dialog_new(parent.as(GtkWindow.self), tr("Which quality should Fetchplay save?"), title)!
        let gtkWindow = window.as(GtkWindow.self)
        let dialog = window.as(AdwMessageDialog.self)
        gtk_window_set_title(gtkWindow, tr("Choose a Quality"))
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_destroy_with_parent(gtkWindow, 1)

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
        adw_message_dialog_set_extra_child(dialog, list)

        adw_message_dialog_add_response(dialog, Self.cancel, tr("_Cancel"))
        adw_message_dialog_add_response(dialog, Self.download, tr("_Download"))
        adw_message_dialog_set_response_appearance(dialog, Self.download, ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(dialog, Self.download)
        // Escape, and closing the dialog any other way, cancels.
        adw_message_dialog_set_close_response(dialog, Self.cancel)

        // Enter on a choice downloads it (a check button would take Enter for itself); on the
        // buttons, Enter presses the one with the focus.
        let enter = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(enter.opaque, GTK_PHASE_CAPTURE)
        let pressed: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, _, data in
            guard [GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter].contains(Int32(keyval)) else { return 0 }
            let box = CallbackBox<@MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }
        enter.connection("key-pressed", box: CallbackBox<@MainActor () -> Bool> { [weak self] in self?.enterOnChoice() ?? false },
                         handler: unsafeBitCast(pressed, to: GCallback.self)).store(in: &connections)
        gtk_widget_add_controller(window, enter.opaque)

        typealias ResponseHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        let response: ResponseHandler = { _, id, data in
            let box = CallbackBox<@MainActor (String) -> Void>.from(data)
            let id = id.map { String(cString: $0) } ?? VariantChooser.cancel
            MainActor.assumeIsolated { box.body(id) }
        }
        window.connection("response", box: CallbackBox<@MainActor (String) -> Void> { [weak self] id in
            // The dialog closes itself after a response.
            self?.finish(id == Self.download ? self?.chosen : nil, close: false)
        }, handler: unsafeBitCast(response, to: GCallback.self)).store(in: &connections)
        owned = OwnedWidget.keep(window)
    }

    /// The button of `response` (tests click it): the dialog makes them from the labels.
    func button(_ response: String) -> UnsafeMutablePointer<GtkWidget>? {
        let label = response == Self.download ? tr("_Download") : tr("_Cancel")
        return Widgets.descendants(of: window).first {
            gtk_widget_get_mapped($0) != 0 && Widgets.typeName($0) == "GtkButton"
                && gtk_button_get_label($0.as(GtkButton.self)).map { String(cString: $0) } == label
        }
    }

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
    var chosen: HLSVariant? {
        choices.firstIndex { gtk_check_button_get_active($0.as(GtkCheckButton.self)) != 0 }.map { variants[$0] }
    }

    var isShown: Bool { done != nil && gtk_widget_get_visible(window) != 0 }

    private func finish(_ variant: HLSVariant?, close: Bool = true) {
        guard let done else { return }
        self.done = nil
        if close { gtk_window_destroy(window.as(GtkWindow.self)) }
        done(variant)
    }

    /// "1080p · 5.5 Mbit/s"; a variant without a resolution by its rate alone.
    static func label(of variant: HLSVariant) -> String {
        let rate = variant.bandwidth >= 1_000_000
            ? String(format: tr("%1$.1f Mbit/s"), Double(variant.bandwidth) / 1_000_000)
            : String(format: tr("%1$d kbit/s"), variant.bandwidth / 1000)
        guard let height = variant.height else { return rate }
        // TRANSLATORS: a video quality to choose: its height in lines ("1080p") and its bit rate.
        return String(format: tr("%1$dp · %2$@"), height, rate)
    }
}

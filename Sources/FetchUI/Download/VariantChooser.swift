import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization

/// Asks which variant of an HLS link to save before it starts: a small modal window over the
/// main one, one choice per variant by resolution (the best chosen already), Cancel and
/// Download. Enter downloads, Escape or closing the window cancels.
///
/// `done` runs once, on the main thread: with the chosen variant, or nil when cancelled.
@MainActor
final class VariantChooser {
    let window: UnsafeMutablePointer<GtkWidget>
    /// One check button per variant, in the order given (best first).
    let choices: [UnsafeMutablePointer<GtkWidget>]
    let downloadButton: UnsafeMutablePointer<GtkWidget>
    let cancelButton: UnsafeMutablePointer<GtkWidget>
    private let variants: [HLSVariant]
    private var done: (@MainActor (HLSVariant?) -> Void)?

    /// - Parameters:
    ///   - variants: best first; the first is chosen to begin with.
    ///   - title: the video's name, for people.
    init(over parent: UnsafeMutablePointer<GtkWidget>, title: String, variants: [HLSVariant],
         done: @escaping @MainActor (HLSVariant?) -> Void) {
        self.variants = variants
        self.done = done
        window = gtk_window_new()!
        let gtkWindow = window.as(GtkWindow.self)
        gtk_window_set_title(gtkWindow, tr("Choose a Quality"))
        gtk_window_set_transient_for(gtkWindow, parent.as(GtkWindow.self))
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_resizable(gtkWindow, 0)
        gtk_window_set_destroy_with_parent(gtkWindow, 1)

        // A header bar of its own, as the main window has: the same look under any window manager.
        let header = gtk_header_bar_new()!
        gtk_window_set_titlebar(gtkWindow, header)

        let heading = Widgets.label(tr("Which quality should Fetchplay save?"), classes: ["heading"])
        let name = Widgets.label(title, classes: ["dim-label"])
        gtk_label_set_ellipsize(name.opaque, PANGO_ELLIPSIZE_MIDDLE)
        for label in [heading, name] { gtk_label_set_xalign(label.opaque, 0) }
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

        cancelButton = gtk_button_new_with_mnemonic(tr("_Cancel"))!
        downloadButton = gtk_button_new_with_mnemonic(tr("_Download"))!
        gtk_widget_add_css_class(downloadButton, "suggested-action")
        let buttons = Widgets.box(GTK_ORIENTATION_HORIZONTAL, spacing: 8, [cancelButton, downloadButton])
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        gtk_widget_set_margin_top(buttons, 8)

        let content = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 8, [heading, name, list, buttons])
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
                     gtk_widget_set_margin_end] { side(content, 18) }
        gtk_widget_set_size_request(content, 320, -1)
        gtk_window_set_child(gtkWindow, content)
        gtk_window_set_default_widget(gtkWindow, downloadButton)

        // Escape closes the window, which cancels (as closing it any other way does).
        let keys = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_add_shortcut(keys.opaque, gtk_shortcut_new(gtk_keyval_trigger_new(guint(GDK_KEY_Escape), GdkModifierType(rawValue: 0)),
                                                                           gtk_named_action_new("window.close")))
        gtk_widget_add_controller(window, keys.opaque)

        // Enter on a choice downloads it (a check button would take Enter for itself); on the
        // buttons, Enter presses the one with the focus.
        let enter = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(enter.opaque, GTK_PHASE_CAPTURE)
        let pressed: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, _, data in
            guard [GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter].contains(Int32(keyval)) else { return 0 }
            let box = CallbackBox<@MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }
        enter.connect("key-pressed", box: CallbackBox<@MainActor () -> Bool> { [weak self] in self?.enterOnChoice() ?? false },
                      handler: unsafeBitCast(pressed, to: GCallback.self))
        gtk_widget_add_controller(window, enter.opaque)

        downloadButton.connect("clicked") { [weak self] in self?.finish(self?.chosen) }
        cancelButton.connect("clicked") { [weak self] in self?.finish(nil) }
        window.connectReturningBool("close-request") { [weak self] in
            self?.finish(nil, close: false)
            return false
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

import CAdwaita
import CGtk
import GLibSupport
import Localization

/// What the window's choosers share (a stream's quality, a page's videos): an `AdwMessageDialog`
/// over the main window with the choices as its extra child, Cancel and Download (suggested and
/// default). Escape, or closing it any other way, cancels; Enter with the focus on a choice
/// downloads (a check button or a row would take Enter for itself).
@MainActor
enum ChoiceDialog {
    typealias Widget = UnsafeMutablePointer<GtkWidget>
    /// The dialog's responses.
    static let download = "download", cancel = "cancel"

    /// A modal dialog, not shown yet.
    static func make(over parent: Widget, title: String, heading: String, body: String, choices: Widget) -> Widget {
        let window = adw_message_dialog_new(parent.as(GtkWindow.self), heading, body)!
        let gtkWindow = window.as(GtkWindow.self)
        let dialog = window.as(AdwMessageDialog.self)
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_destroy_with_parent(gtkWindow, 1)
        adw_message_dialog_set_extra_child(dialog, choices)
        adw_message_dialog_add_response(dialog, cancel, tr("_Cancel"))
        adw_message_dialog_add_response(dialog, download, tr("_Download"))
        adw_message_dialog_set_response_appearance(dialog, download, ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(dialog, download)
        adw_message_dialog_set_close_response(dialog, cancel)
        return window
    }

    /// The "Audio only" switch a chooser shows under its choices, off, in a boxed list of its
    /// own (a row of `PreferencesRows`: the whole row turns it): on, the download saves only the
    /// best audio, as `--audio-only` does. Returns the list to show and the switch to read.
    static func audioOnlySwitch() -> (list: Widget, toggle: Widget) {
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        gtk_widget_add_css_class(list, "boxed-list")
        let toggle = gtk_switch_new()!
        gtk_list_box_append(list.opaque, PreferencesRows.row(tr("Audio only"), subtitle: tr("Save only the best audio, as it is"),
                                                             control: toggle))
        return (list, toggle)
    }

    /// Whether the switch of `audioOnlySwitch` is on.
    static func isOn(_ toggle: Widget) -> Bool { gtk_switch_get_active(toggle.opaque) != 0 }

    /// Calls `enter` for Enter anywhere in `window` (true: handled), and `response` with the
    /// response the dialog gave (it closes itself after one).
    static func connect(_ window: Widget, enter: @escaping @MainActor () -> Bool,
                        response: @escaping @MainActor (String) -> Void) -> [SignalConnection] {
        var connections: [SignalConnection] = []
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys.opaque, GTK_PHASE_CAPTURE)
        let pressed: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, _, data in
            guard [GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter].contains(Int32(keyval)) else { return 0 }
            let box = CallbackBox<@MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }
        keys.connection("key-pressed", box: CallbackBox<@MainActor () -> Bool>(enter),
                        handler: unsafeBitCast(pressed, to: GCallback.self)).store(in: &connections)
        gtk_widget_add_controller(window, keys.opaque)

        typealias ResponseHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        let responded: ResponseHandler = { _, id, data in
            let box = CallbackBox<@MainActor (String) -> Void>.from(data)
            let id = id.map { String(cString: $0) } ?? ChoiceDialog.cancel
            MainActor.assumeIsolated { box.body(id) }
        }
        window.connection("response", box: CallbackBox<@MainActor (String) -> Void>(response),
                          handler: unsafeBitCast(responded, to: GCallback.self)).store(in: &connections)
        return connections
    }

    /// The button of `response` (tests click it): the dialog makes them from the labels.
    static func button(_ response: String, in window: Widget) -> Widget? {
        let label = response == download ? tr("_Download") : tr("_Cancel")
        return Widgets.descendants(of: window).first {
            gtk_widget_get_mapped($0) != 0 && Widgets.typeName($0) == "GtkButton"
                && gtk_button_get_label($0.as(GtkButton.self)).map { String(cString: $0) } == label
        }
    }
}

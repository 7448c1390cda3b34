import CAdwaita
import CGtk
import GLibSupport
import Localization

/// What the window's choosers share (a stream's quality, a page's videos): an `AdwMessageDialog`
/// over the main window with the choices as its extra child, the "Audio only" switch under them,
/// Cancel and Download (suggested and default). Escape, or closing it any other way, cancels;
/// Enter with the focus on a choice downloads while Download is on (a check button or a row
/// would take Enter for itself).
///
/// A chooser subclasses it and says what is chosen. `done` runs once, on the main thread: with
/// the choice, or `cancelled`, and whether only the audio is saved.
@MainActor
class ChoiceDialog<Choice> {
    typealias Widget = UnsafeMutablePointer<GtkWidget>
    /// The dialog's responses.
    static var download: String { "download" }
    static var cancel: String { "cancel" }
    /// The AdwMessageDialog (a GtkWindow).
    let window: Widget
    /// The "Audio only" switch, off to begin with: on, the download saves only the best audio, as
    /// `--audio-only` does.
    let audioOnly: Widget
    /// The signal handlers connected (a chooser adds its own): disconnected when it goes.
    var connections: [SignalConnection] = []
    /// A reference to the window, taken at the end of `init`: the pointers above never outlive it.
    private var owned: [OwnedWidget] = []
    /// The widgets Enter downloads from; the first has the focus when shown.
    private let focusable: [Widget]
    private let choice: @MainActor () -> Choice
    private let cancelled: Choice
    private var done: (@MainActor (Choice, _ audioOnly: Bool) -> Void)?

    /// - Parameters:
    ///   - choices: the chooser's widgets, shown above the switch.
    ///   - chosen: what the choices say now.
    init(over parent: Widget, title: String, heading: String, body: String, choices: Widget, focusable: [Widget],
         chosen: @escaping @MainActor () -> Choice, cancelled: Choice, done: @escaping @MainActor (Choice, _ audioOnly: Bool) -> Void) {
        self.focusable = focusable
        choice = chosen
        self.cancelled = cancelled
        self.done = done
        // A boxed list of its own, a row of `PreferencesRows`: the whole row turns it.
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        gtk_widget_add_css_class(list, "boxed-list")
        audioOnly = gtk_switch_new()!
        gtk_list_box_append(list.opaque, PreferencesRows.row(tr("Audio only"), subtitle: tr("Save only the best audio, as it is"),
                                                             control: audioOnly))

        window = adw_message_dialog_new(parent.as(GtkWindow.self), heading, body)!
        let gtkWindow = window.as(GtkWindow.self)
        let dialog = window.as(AdwMessageDialog.self)
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_destroy_with_parent(gtkWindow, 1)
        adw_message_dialog_set_extra_child(dialog, Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 12, [choices, list]))
        adw_message_dialog_add_response(dialog, Self.cancel, tr("_Cancel"))
        adw_message_dialog_add_response(dialog, Self.download, tr("_Download"))
        adw_message_dialog_set_response_appearance(dialog, Self.download, ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(dialog, Self.download)
        adw_message_dialog_set_close_response(dialog, Self.cancel)
        connectEnterAndResponse()
        owned = OwnedWidget.keep(window)
    }

    /// What the choices say now.
    var chosen: Choice { choice() }

    /// Whether the "Audio only" switch is on.
    var isAudioOnly: Bool { gtk_switch_get_active(audioOnly.opaque) != 0 }

    var isShown: Bool { done != nil && gtk_widget_get_visible(window) != 0 }

    /// Shows the window with the focus on the first choice.
    func present() {
        gtk_window_present(window.as(GtkWindow.self))
        if let first = focusable.first { gtk_widget_grab_focus(first) }
    }

    /// The button of `response` (tests click it): the dialog makes them from the labels.
    func button(_ response: String) -> Widget? {
        let label = response == Self.download ? tr("_Download") : tr("_Cancel")
        return Widgets.descendants(of: window).first {
            gtk_widget_get_mapped($0) != 0 && Widgets.typeName($0) == "GtkButton"
                && gtk_button_get_label($0.as(GtkButton.self)).map { String(cString: $0) } == label
        }
    }

    /// Enter anywhere in the window (caught before a choice takes it), and the response the
    /// dialog gave (it closes itself after one).
    private func connectEnterAndResponse() {
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys.opaque, GTK_PHASE_CAPTURE)
        let pressed: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, keyval, _, _, data in
            guard [GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter].contains(Int32(keyval)) else { return 0 }
            let box = CallbackBox<@MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }
        let enter: @MainActor () -> Bool = { [weak self] in self?.enterOnChoice() ?? false }
        keys.connection("key-pressed", box: CallbackBox(enter), handler: unsafeBitCast(pressed, to: GCallback.self)).store(in: &connections)
        gtk_widget_add_controller(window, keys.opaque)

        typealias ResponseHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        let responded: ResponseHandler = { _, id, data in
            let box = CallbackBox<@MainActor (String?) -> Void>.from(data)
            let id = id.map { String(cString: $0) }
            MainActor.assumeIsolated { box.body(id) }
        }
        let response: @MainActor (String?) -> Void = { [weak self] id in
            guard let self else { return }
            finish(id == Self.download ? chosen : cancelled, close: false)
        }
        window.connection("response", box: CallbackBox(response), handler: unsafeBitCast(responded, to: GCallback.self))
            .store(in: &connections)
    }

    /// Enter with the focus on a choice: downloads what is chosen, if Download is on.
    private func enterOnChoice() -> Bool {
        guard focusable.contains(where: { Widgets.focusIsIn(window, $0) }) else { return false }
        if adw_message_dialog_get_response_enabled(window.as(AdwMessageDialog.self), Self.download) != 0 { finish(chosen) }
        return true
    }

    /// Closes it as Cancel does: the window it stands over is going (its dialog must go first,
    /// or GTK disconnects it from a parent already freed).
    func cancel() { finish(cancelled) }

    private func finish(_ choice: Choice, close: Bool = true) {
        guard let done else { return }
        self.done = nil
        let audioOnly = isAudioOnly
        if close { gtk_window_destroy(window.as(GtkWindow.self)) }
        done(choice, audioOnly)
    }
}

import CAdwaita
import CGtk
import FetchViewModel
import GLibSupport
import Localization

/// The toast after a deletion, with Undo; the coordinator decides what its going means.
extension LibraryView {
    /// Shows a toast with `markup` and an Undo button (`win.undo`, as Ctrl+Z) for `seconds`;
    /// `dismissed` runs once when it goes, whichever way: timed out, closed by the person,
    /// hidden by `hideUndo`, or replaced by the next one.
    ///
    /// `markup`: libadwaita 1.2 reads a toast's title as Pango markup and has no switch to
    /// turn that off (`use-markup` came in 1.4), so a video's name goes in through
    /// `Markup.escaped`.
    func showUndo(markup: String, seconds: UInt32, dismissed: @escaping @MainActor () -> Void) {
        hideUndo()
        guard let toast = adw_toast_new(markup) else { return dismissed() }
        // TRANSLATORS: the button of the toast after a deletion; the underscore marks its access key.
        adw_toast_set_button_label(toast, tr("_Undo"))
        adw_toast_set_action_name(toast, FetchplayAction.undo.detailedName)
        adw_toast_set_timeout(toast, seconds)
        // A new deletion's toast shows at once rather than after the one before it.
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        undoToast = toast
        undoDismissed = dismissed
        undoToastDismissed = toast.connect("dismissed") { [weak self] in self?.toastDismissed(toast) }
        adw_toast_overlay_add_toast(toastOverlay.opaque, toast) // takes the reference
    }

    /// Hides the undo toast, if one shows (its `dismissed` runs).
    func hideUndo() {
        guard let toast = undoToast else { return }
        adw_toast_dismiss(toast)
        toastDismissed(toast) // in case the overlay had not shown it yet
    }

    private func toastDismissed(_ toast: OpaquePointer) {
        guard undoToast == toast else { return }
        undoToast = nil
        let dismissed = undoDismissed
        undoDismissed = nil
        dismissed?()
    }

    public var isUndoVisible: Bool { undoToast != nil }

    /// The words of the undo toast as the person reads them: the text of its title's label in
    /// the overlay, markup parsed (tests); nil while none shows.
    var undoMessage: String? {
        guard undoToast != nil else { return nil }
        let toastWidgets = Widgets.descendants(of: toastOverlay).filter { Widgets.typeName($0) == "AdwToastWidget" }
        // The title is the toast's one label outside a button (Undo and × are buttons).
        return toastWidgets.lazy.compactMap { toast in
            Widgets.descendants(of: toast).first {
                Widgets.typeName($0) == "GtkLabel" && Widgets.typeName(gtk_widget_get_parent($0)) != "GtkButton"
            }
        }.last.map { String(cString: gtk_label_get_text($0.opaque)) }
    }
}

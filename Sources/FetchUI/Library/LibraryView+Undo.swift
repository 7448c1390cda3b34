import CAdwaita
import CGtk
import FetchPresentation
import GLibSupport
import Localization

/// The toast after a deletion, with Undo; the coordinator decides what its going means.
extension LibraryView {
    /// Shows a toast with `message` and an Undo button (`win.undo`, as Ctrl+Z) for `seconds`;
    /// `dismissed` runs once when it goes, whichever way: timed out, closed by the person,
    /// hidden by `hideUndo`, or replaced by the next one.
    func showUndo(_ message: String, seconds: UInt32, dismissed: @escaping @MainActor () -> Void) {
        hideUndo()
        guard let toast = adw_toast_new(message) else { return dismissed() }
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

    /// The words of the undo toast on screen (tests).
    var undoMessage: String? { undoToast.flatMap { adw_toast_get_title($0) }.map { String(cString: $0) } }
}

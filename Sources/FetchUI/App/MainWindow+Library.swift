import CGtk
import FetchCore
import FetchViewModel
import GLibSupport

/// The window's side of the library: the pane beside the ring, its actions, and what the
/// store's changes mean for it.
extension MainWindow {
    /// Connects the library to the store and the window's actions.
    func installLibrary() {
        guard let library else { return }
        library.host = self
        // At gtk_window_destroy (see FetchplayApplication for why not "destroy").
        widget.connect("unrealize") { [weak self] in self?.library?.close() }.store(in: &connections)
    }

    /// A window opened on a library with no link to fetch gives the list the keyboard focus
    /// once it shows rows: the arrows go through the videos, typing searches, Ctrl+V still
    /// pastes a link. The empty entry's blinking cursor would also redraw the window for ten
    /// seconds after start (GTK's blink timeout) while nothing else happens.
    ///
    /// Until then, and in a window with a link or without videos, the focus starts where
    /// `focusPrimaryControl` puts it (the entry, in a new window): GTK would otherwise give it to
    /// the first button of the header, where Enter opens the file dialog and typing goes nowhere.
    func placeInitialFocus() {
        downloadPage.focusPrimaryControl()
        library?.view.focusList { [weak self] in
            guard let self else { return false }
            return self.downloadPage.entryText.isEmpty && self.visiblePage == "download"
        }
    }

    /// Ctrl+F: the library's search, shown first in a narrow window.
    func findInLibrary() {
        if isNarrow, !isLibraryVisible { gtk_toggle_button_set_active(ui.libraryToggle.as(GtkToggleButton.self), 1) }
        library?.view.focusSearch()
    }
}

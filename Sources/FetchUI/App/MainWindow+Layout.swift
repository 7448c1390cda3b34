import CGtk
import GLibSupport

/// The window's shape: wide (the library beside the ring) or narrow (the library behind the
/// header's toggle), switched at `narrowWidth`; and its size, remembered between runs.
extension MainWindow {
    /// Pixels: below this window width the library leaves the side and goes behind a toggle.
    static let narrowWidth: Int32 = 720

    /// Follows the window's width and the Library toggle; restores the remembered size.
    func installLayout() {
        if let file = geometryFile, let geometry = WindowGeometry.load(from: file) {
            gtk_window_set_default_size(widget.as(GtkWindow.self), geometry.width, geometry.height)
            if geometry.maximized { gtk_window_maximize(widget.as(GtkWindow.self)) }
        }
        // The surface's width is the real one (maximized and fullscreen too); it exists once the
        // window is realized.
        widget.connect("realize") { [weak self] in
            guard let self, let surface = gtk_native_get_surface(self.widget.opaque) else { return }
            // The surface lives while the window is realized; a new one comes with each realize.
            self.surfaceWidth = surface.connect("notify::width") { [weak self] (_: UnsafeMutableRawPointer?) in
                self?.updateLayout()
            }
            self.updateLayout()
        }.store(in: &connections)
        widget.connect("notify::default-width") { [weak self] (_: UnsafeMutableRawPointer?) -> Void in
            self?.updateLayout()
            self?.saveGeometrySoon()
        }.store(in: &connections)
        for property in ["notify::default-height", "notify::maximized"] {
            widget.connect(property) { [weak self] (_: UnsafeMutableRawPointer?) in self?.saveGeometrySoon() }.store(in: &connections)
        }
        ui.libraryToggle.connect("toggled") { [weak self] in self?.updateLayout() }.store(in: &connections)
        // The header bar is part of the content: fullscreen is the picture alone, as GTK does
        // with a titlebar.
        widget.connect("notify::fullscreened") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self else { return }
            Widgets.setVisible(self.ui.headerBar, gtk_window_is_fullscreen(self.widget.as(GtkWindow.self)) == 0)
        }.store(in: &connections)
        updateLayout()
    }

    /// Whether the window is narrow now (the library behind the toggle).
    public var isNarrow: Bool { gtk_widget_has_css_class(widget, "narrow") != 0 }

    /// Whether the library shows (beside the ring, or instead of it when narrow).
    public var isLibraryVisible: Bool { ui.library.map { gtk_widget_get_visible($0) != 0 } ?? false }

    func updateLayout() {
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(widget.as(GtkWindow.self), &width, &height)
        if let surface = gtk_native_get_surface(widget.opaque), gdk_surface_get_width(surface) > 0 {
            width = gdk_surface_get_width(surface)
        }
        let narrow = ui.library != nil && width > 0 && width < Self.narrowWidth
        if narrow != isNarrow {
            if narrow { gtk_widget_add_css_class(widget, "narrow") } else { gtk_widget_remove_css_class(widget, "narrow") }
            if !narrow { gtk_toggle_button_set_active(ui.libraryToggle.as(GtkToggleButton.self), 0) }
        }
        let showLibrary = !narrow || gtk_toggle_button_get_active(ui.libraryToggle.as(GtkToggleButton.self)) != 0
        Widgets.setVisible(ui.libraryToggle, narrow && visiblePage != "video")
        playback.view.controls.setCompact(narrow || (width > 0 && width < Self.narrowWidth))
        Widgets.setVisible(ui.downloadColumn, !narrow || !showLibrary)
        Widgets.setVisible(ui.separator, !narrow)
        if let library = ui.library { Widgets.setVisible(library, showLibrary) }
    }

    /// Shows the download column again when the window is narrow (a row was chosen, Ctrl+L).
    func showDownloadColumn() {
        if isNarrow { gtk_toggle_button_set_active(ui.libraryToggle.as(GtkToggleButton.self), 0) }
    }

    /// Remembers the size once it has settled (half a second without a change), as well as when
    /// the window closes: a crash keeps it too, and a close in the same instant as a resize
    /// (before GTK has laid the window out at its new size) still finds the size saved.
    private func saveGeometrySoon() {
        geometrySave.start { [weak self] in self?.saveGeometry() }
    }

    /// Remembers the size for next time.
    func saveGeometry() {
        guard let file = geometryFile else { return }
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(widget.as(GtkWindow.self), &width, &height)
        let maximized = gtk_window_is_maximized(widget.as(GtkWindow.self)) != 0
        guard width >= WindowGeometry.minimum.width, height >= WindowGeometry.minimum.height else { return }
        WindowGeometry(width: width, height: height, maximized: maximized).save(to: file)
    }
}

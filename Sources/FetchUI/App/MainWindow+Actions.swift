import CGtk
import FetchCore
import FetchViewModel
import GLibSupport

/// The window's actions: installed from `FetchplayAction`'s table, each running its
/// `ActionHandler` and enabled as its row says in the window's `actionContext`.
extension MainWindow {
    /// Runs a window action, exactly as its button or key would; `parameter` for those that
    /// take one (a library row's link).
    public func activate(_ action: FetchplayAction, parameter: String? = nil) {
        g_action_group_activate_action(widget.opaque, action.name, parameter.map { g_variant_new_string($0) })
    }

    /// Whether an action can run now (its buttons are sensitive).
    public func isEnabled(_ action: FetchplayAction) -> Bool {
        guard let gaction = actions[action] else { return false }
        return g_action_get_enabled(gaction) != 0
    }

    /// Creates the `win.*` actions, each running its handler (then refreshing the window), and
    /// puts each action's keys where its `keyScope` says: the window (unclaimed keys), the video
    /// page, the library list. Application accelerators are installed by `FetchplayApplication`.
    func installActions() {
        let unclaimed = Self.shortcutController(on: widget)
        let videoPage = Self.shortcutController(on: playback.view.widget)
        let libraryList = library.map { Self.shortcutController(on: $0.view.list) }
        for action in FetchplayAction.allCases {
            let run: (MainWindow, String?) -> Void
            switch action.handler {
            case .window(let handle): run = { window, _ in handle(window) }
            case .windowLink(let handle): run = { window, link in if let link { handle(window, link) } }
            case .app, .appLink: continue // the application's own (FetchplayApplication)
            }
            let installed = action.install(in: widget.opaque) { [weak self] parameter in
                guard let self, self.isEnabled(action) else { return }
                run(self, parameter)
                self.refresh()
            }
            installed.activation.store(in: &connections)
            actions[action] = installed.action
            let row = action.row
            let controller: OpaquePointer? = switch row.keyScope {
            case .anywhere: nil
            case .unclaimed: unclaimed
            case .videoPage: videoPage
            case .libraryList: libraryList
            }
            guard let controller else { continue }
            for key in row.keys {
                let shortcut = gtk_shortcut_new(gtk_shortcut_trigger_parse_string(key),
                                                gtk_named_action_new(action.detailedName))
                gtk_shortcut_controller_add_shortcut(controller, shortcut)
            }
        }
    }

    /// A bubble-phase shortcut controller on `widget`: it hears keys only while the focus is in
    /// `widget` and no widget on the way claimed them.
    private static func shortcutController(on widget: UnsafeMutablePointer<GtkWidget>) -> OpaquePointer {
        let controller = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(controller.opaque, GTK_SHORTCUT_SCOPE_LOCAL)
        gtk_event_controller_set_propagation_phase(controller.opaque, GTK_PHASE_BUBBLE)
        gtk_widget_add_controller(widget, controller.opaque)
        return controller.opaque
    }

    /// What the window's actions depend on now (`FetchplayAction.Row.isEnabled` decides).
    var actionContext: ActionContext {
        let showsVideo = visiblePage == "video"
        return ActionContext(controls: downloadPage.controls, hasStore: store != nil, hasLibrary: library != nil,
                             showsVideo: showsVideo, videoIsReady: showsVideo && playback.isReady,
                             isFullscreen: playback.isFullscreen, canDelete: library?.canDelete ?? false,
                             canUndo: library?.canUndo ?? false)
    }

    /// Brings every action's enabled state in line with its row.
    func updateActions() {
        let context = actionContext
        for (action, gaction) in actions {
            let allowed = action.row.isEnabled(context)
            if (g_action_get_enabled(gaction) != 0) != allowed { g_simple_action_set_enabled(gaction, allowed ? 1 : 0) }
        }
    }
}

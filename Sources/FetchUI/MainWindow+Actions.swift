import CGtk
import FetchCore
import GLibSupport

extension MainWindow {
    /// Runs a window action, exactly as its button or key would.
    public func activate(_ action: FetchplayAction) {
        g_action_group_activate_action(widget.opaque, action.name, nil)
    }

    /// Whether an action can run now (its buttons are sensitive).
    public func isEnabled(_ action: FetchplayAction) -> Bool {
        guard let gaction = actions[action] else { return false }
        return g_action_get_enabled(gaction) != 0
    }

    /// Creates the `win.*` actions from the table, and the window's shortcuts for unclaimed keys.
    func installActions() {
        let shortcuts = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(shortcuts.opaque, GTK_SHORTCUT_SCOPE_LOCAL)
        gtk_event_controller_set_propagation_phase(shortcuts.opaque, GTK_PHASE_BUBBLE)

        for action in FetchplayAction.allCases where action.scope == .win {
            let gaction = g_simple_action_new(action.name, nil)!
            gaction.connect("activate") { [weak self] (_: UnsafeMutableRawPointer?) in self?.perform(action) }
            g_action_map_add_action(widget.opaque, gaction)
            actions[action] = gaction
            g_object_unref(gaction.rawObject)
            for key in action.unclaimedKeys {
                let shortcut = gtk_shortcut_new(gtk_shortcut_trigger_parse_string(key),
                                                gtk_named_action_new(action.detailedName))
                gtk_shortcut_controller_add_shortcut(shortcuts.opaque, shortcut)
            }
        }
        gtk_widget_add_controller(widget, shortcuts.opaque)
    }

    func setEnabled(_ action: FetchplayAction, _ enabled: Bool) {
        guard let gaction = actions[action], (g_action_get_enabled(gaction) != 0) != enabled else { return }
        g_simple_action_set_enabled(gaction, enabled ? 1 : 0)
    }

    func perform(_ action: FetchplayAction) {
        guard action.scope == .win, isEnabled(action) else { return }
        switch action {
        case .start:
            startFromEntry()
        case .pause:
            session?.pause()
        case .continue:
            session?.start()
        case .pauseOrContinue:
            if isEnabled(.pause) { session?.pause() } else if isEnabled(.continue) { session?.start() }
        case .play:
            if case .completed(let path) = session?.state {
                play(path: path, title: session?.url.map(Self.displayName) ?? path)
            }
        case .focusURL:
            gtk_widget_grab_focus(ui.entry)
            gtk_editable_select_region(ui.entry.opaque, 0, -1)
        case .back:
            showDownloadPage()
        case .togglePlayback, .seekForward, .seekBackward, .volumeUp, .volumeDown, .mute, .fullscreen,
             .leaveFullscreen, .startOver, .slower, .faster:
            playback.perform(action)
        case .delete, .undo, .openFolder:
            performLibrary(action)
        case .open, .quit:
            break
        }
    }
}

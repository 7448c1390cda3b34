import CGtk
import FetchCore
import FetchViewModel
import GLibSupport

/// The window's actions: installed from `FetchplayAction`'s table, enabled from one predicate,
/// run from one switch.
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

    /// Creates the `win.*` actions and puts each action's keys where its `keyScope` says: the
    /// window (unclaimed keys), the video page, the library list. Application accelerators are
    /// installed by `FetchplayApplication`.
    func installActions() {
        let unclaimed = Self.shortcutController(on: widget)
        let videoPage = Self.shortcutController(on: playback.view.widget)
        let libraryList = library.map { Self.shortcutController(on: $0.view.list) }
        for action in FetchplayAction.allCases where action.scope == .win {
            let installed = action.install(in: widget.opaque) { [weak self] parameter in
                self?.perform(action, parameter: parameter) // a row's link, for the row actions
            }
            installed.activation.store(in: &connections)
            actions[action] = installed.action
            let controller: OpaquePointer? = switch action.keyScope {
            case .anywhere: nil
            case .unclaimed: unclaimed
            case .videoPage: videoPage
            case .libraryList: libraryList
            }
            guard let controller else { continue }
            for key in action.keys {
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

    /// Whether `action` can run now: the one place that decides it. Buttons grey out and keys
    /// fall through to other widgets when it says no.
    func isAllowed(_ action: FetchplayAction) -> Bool {
        let controls = self.controls
        let onVideo = visiblePage == "video", ready = playback.isReady
        switch action {
        case .start: return store != nil && (controls.showsStart || controls.showsRetry)
        case .pause: return controls.canPause
        case .continue: return controls.canContinue
        case .pauseOrContinue: return !onVideo && (controls.canPause || controls.canContinue)
        case .play: return controls.canPlay
        case .focusURL, .pasteURL, .close: return true
        case .back: return onVideo
        case .togglePlayback, .seekForward, .seekBackward, .startOver, .slower, .faster: return onVideo && ready
        case .volumeUp, .volumeDown, .mute, .fullscreen: return onVideo
        case .leaveFullscreen: return playback.isFullscreen
        case .delete: return library?.canDelete ?? false
        case .undo: return library?.canUndo ?? false
        case .openFolder: return library != nil
        case .playItem, .pauseItem, .continueItem, .showItemInFiles, .copyItemLink, .deleteItem: return library != nil
        case .find: return library != nil && !onVideo
        case .open, .quit, .preferences, .shortcuts, .about, .playLink, .showLink, .browserDownload: return true
        }
    }

    /// Brings every action's enabled state in line with `isAllowed`.
    func updateActions() {
        for (action, gaction) in actions {
            let allowed = isAllowed(action)
            if (g_action_get_enabled(gaction) != 0) != allowed { g_simple_action_set_enabled(gaction, allowed ? 1 : 0) }
        }
    }

    func perform(_ action: FetchplayAction, parameter: String? = nil) {
        guard action.scope == .win, isEnabled(action) else { return }
        switch action {
        case .start:
            startFromEntry()
        case .pause:
            store?.pause()
        case .continue:
            store?.start()
        case .pauseOrContinue:
            if controls.canPause { store?.pause() } else if controls.canContinue { store?.start() }
        case .play:
            playSelected()
        case .focusURL:
            focusEntry()
        case .pasteURL:
            pasteIntoEntry()
        case .back:
            showDownloadPage()
        case .close:
            gtk_window_close(widget.as(GtkWindow.self))
        case .togglePlayback, .seekForward, .seekBackward, .volumeUp, .volumeDown, .mute, .fullscreen,
             .leaveFullscreen, .startOver, .slower, .faster:
            playback.perform(action)
        case .delete, .undo, .openFolder, .find:
            performLibrary(action)
        case .playItem, .pauseItem, .continueItem, .showItemInFiles, .copyItemLink, .deleteItem:
            if let parameter { library?.perform(action, url: parameter) }
        case .open, .quit, .preferences, .shortcuts, .about, .playLink, .showLink, .browserDownload:
            break // the application's own (FetchplayApplication)
        }
        refresh()
    }
}

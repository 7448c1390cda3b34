import CGtk
import FetchViewModel
import GLibSupport

/// What an action does, bound to the one owner that handles it: the application (`app.*`) or
/// the window (`win.*`, which reaches its pages, the player and the library). Its row
/// (`FetchplayAction.row`) says everything else: keys, words, parameter, when it is enabled;
/// its scope and parameter agree with the handler's case (`MainWindowTests` holds them together).
@MainActor
enum ActionHandler {
    case app((FetchplayApplication) -> Void)
    /// An application action that takes a link (or the browser's message).
    case appLink((FetchplayApplication, String) -> Void)
    case window((MainWindow) -> Void)
    /// A window action that takes a library row's link.
    case windowLink((MainWindow, String) -> Void)
}

extension FetchplayAction {
    /// What the action does. One switch naming every case without a `default`: a new action does
    /// not compile until it does something.
    @MainActor
    var handler: ActionHandler {
        switch self {
        case .start: .window { $0.downloadPage.startFromEntry() }
        case .pause: .window { $0.store?.pause() }
        case .continue: .window { $0.store?.start() }
        case .pauseOrContinue:
            .window { window in
                let controls = window.downloadPage.controls
                if controls.canPause { window.store?.pause() } else if controls.canContinue { window.store?.start() }
            }
        case .play: .window { $0.downloadPage.playSelected() }
        case .focusURL: .window { $0.focusEntry() }
        case .pasteURL: .window { $0.pasteIntoEntry() }
        case .back: .window { $0.showDownloadPage() }
        case .close: .window { gtk_window_close($0.widget.as(GtkWindow.self)) }
        case .open: .app { $0.chooseFile() }
        case .quit: .app { $0.quit() }
        case .preferences: .app { $0.presentWindow().showPreferences() }
        case .shortcuts: .app { $0.presentWindow().showShortcuts() }
        case .about: .app { $0.presentWindow().showAbout() }
        case .playLink: .appLink { $0.presentWindow().playLink($1) }
        case .showLink: .appLink { $0.presentWindow().showLink($1) }
        case .browserDownload: .appLink { $0.presentWindow().downloadFromBrowser($1) }
        case .togglePlayback: .window { $0.playback.togglePlayback() }
        case .seekForward: .window { $0.playback.seek(by: PlaybackController.seekStep) }
        case .seekBackward: .window { $0.playback.seek(by: -PlaybackController.seekStep) }
        case .volumeUp: .window { $0.playback.changeVolume(by: PlaybackController.volumeStep) }
        case .volumeDown: .window { $0.playback.changeVolume(by: -PlaybackController.volumeStep) }
        case .mute: .window { $0.playback.toggleMute() }
        case .fullscreen: .window { $0.playback.setFullscreen(true) }
        case .leaveFullscreen: .window { $0.playback.setFullscreen(false) }
        case .startOver: .window { $0.playback.startOver() }
        case .slower: .window { $0.playback.changeRate(faster: false) }
        case .faster: .window { $0.playback.changeRate(faster: true) }
        case .delete: .window { $0.library?.deleteSelected() }
        case .undo: .window { $0.library?.undo() }
        case .openFolder: .window { $0.library?.openFolder(parent: $0.widget.as(GtkWindow.self)) }
        case .find: .window { $0.findInLibrary() }
        case .playItem: .windowLink { $0.library?.play(url: $1) }
        case .pauseItem, .continueItem: .windowLink { $0.store?.toggle(url: $1) }
        case .showItemInFiles: .windowLink { $0.library?.showInFiles(url: $1) }
        case .copyItemLink: .windowLink { $0.library?.copyLink(url: $1) }
        case .deleteItem: .windowLink { $0.library?.delete(url: $1) }
        }
    }

    /// Adds the action to `map` (the window, the application) as a `GSimpleAction` of its row's
    /// parameter type; `perform` hears each activation with its string parameter (a link) for
    /// the actions that take one. Returns the action (the map holds it) and the activation's
    /// connection, for the caller to keep.
    @MainActor
    func install(in map: OpaquePointer,
                 perform: @escaping @MainActor (String?) -> Void) -> (action: OpaquePointer, activation: SignalConnection) {
        let type = row.parameterType.map { g_variant_type_new($0) } ?? nil
        let gaction = g_simple_action_new(name, type)!
        if let type { g_variant_type_free(type) }
        let activation = gaction.connect("activate") { (parameter: UnsafeMutableRawPointer?) -> Void in
            perform(parameter.map { String(cString: g_variant_get_string(OpaquePointer($0), nil)) })
        }
        g_action_map_add_action(map, gaction)
        g_object_unref(gaction.rawObject)
        return (gaction, activation)
    }
}

/// Every command of the app and the window, in one table: its scope, name and keys.
///
/// Buttons carry the detailed name (`win.start`), the keys are installed from `keys` where their
/// `keyScope` says, and tests activate the same actions, so all three drive the same code. When
/// each one may run is decided in one place, `MainWindow.isAllowed(_:)`.
public enum FetchplayAction: String, CaseIterable, Sendable {
    case start
    case pause
    case `continue`
    case play
    case pauseOrContinue = "pause-or-continue"
    case focusURL = "focus-url"
    case pasteURL = "paste-url"
    case back
    case close
    case open
    case quit
    case preferences
    case shortcuts
    case about
    // From notifications (and D-Bus): they take the link as their parameter.
    case playLink = "play-link"
    case showLink = "show-link"
    // From the browser extension's native host, over D-Bus: the checked message as its parameter.
    case browserDownload = "browser-download"
    // Playback: their plain keys (Space, arrows, M, F) live on the video page only.
    case togglePlayback = "toggle-playback"
    case seekForward = "seek-forward"
    case seekBackward = "seek-backward"
    case volumeUp = "volume-up"
    case volumeDown = "volume-down"
    case mute
    case fullscreen
    case leaveFullscreen = "leave-fullscreen"
    case startOver = "start-over"
    case slower
    case faster
    // The library: they act on the selected row. Delete is bound on the list itself (in the
    // entry the key deletes text); Undo is enabled only while the undo bar shows.
    case delete
    case undo
    case openFolder = "open-folder"
    case find
    // A library row's menu and its button: they act on that row's link, their parameter (the
    // row's menu items and button carry it as their target).
    case playItem = "play-item"
    case pauseItem = "pause-item"
    case continueItem = "continue-item"
    case showItemInFiles = "show-item-in-files"
    case copyItemLink = "copy-item-link"
    case deleteItem = "delete-item"

    public enum Scope: String, Sendable { case app, win }

    /// Where an action's keys are heard.
    public enum KeyScope: Sendable {
        /// Everywhere in the window, before any widget sees the key (application accelerators):
        /// only for keys with Ctrl or Alt, which typing never produces.
        case anywhere
        /// In the window when the focused widget does not use the key (Space in the entry types
        /// a space, on a button presses it): a bubble-phase shortcut on the window.
        case unclaimed
        /// Only while the focus is on the video page (never while typing in the entry).
        case videoPage
        /// Only while the focus is in the library list.
        case libraryList
    }

    public var scope: Scope {
        switch self {
        case .open, .quit, .preferences, .shortcuts, .about, .playLink, .showLink, .browserDownload: .app
        default: .win
        }
    }

    /// The GAction name without its scope.
    public var name: String { rawValue }

    /// "win.start", as buttons and accelerators name it.
    public var detailedName: String { "\(scope.rawValue).\(name)" }

    /// The type of the action's parameter (a GVariant type string), or nil for none: the
    /// notification actions take the link they are about.
    public var parameterType: String? {
        switch self {
        case .playLink, .showLink, .browserDownload: "s"
        case .playItem, .pauseItem, .continueItem, .showItemInFiles, .copyItemLink, .deleteItem: "s"
        default: nil
        }
    }

    /// The keys, in GTK's trigger syntax.
    public var keys: [String] {
        switch self {
        case .focusURL: ["<Control>l"]
        case .close: ["<Control>w"]
        case .open: ["<Control>o"]
        case .quit: ["<Control>q"]
        case .preferences: ["<Control>comma"]
        case .shortcuts: ["<Control>question"]
        case .back: ["<Alt>Left"]
        case .pauseOrContinue: ["space"]
        // Ctrl+V in the entry pastes into it; elsewhere it puts the link in the entry.
        case .pasteURL: ["<Control>v"]
        // Ctrl+Z in the entry undoes typing; elsewhere it brings a deleted video back.
        case .undo: ["<Control>z"]
        case .togglePlayback: ["space"]
        case .seekForward: ["Right"]
        case .seekBackward: ["Left"]
        case .volumeUp: ["Up"]
        case .volumeDown: ["Down"]
        case .mute: ["m"]
        case .fullscreen: ["f", "F11"]
        case .leaveFullscreen: ["Escape"]
        case .slower: ["bracketleft"]
        case .faster: ["bracketright"]
        case .delete: ["Delete", "KP_Delete"]
        case .find: ["<Control>f"]
        default: []
        }
    }

    public var keyScope: KeyScope {
        switch self {
        case .focusURL, .close, .open, .quit, .back, .preferences, .shortcuts, .find: .anywhere
        case .pauseOrContinue, .pasteURL, .undo: .unclaimed
        case .togglePlayback, .seekForward, .seekBackward, .volumeUp, .volumeDown, .mute, .fullscreen,
             .leaveFullscreen, .slower, .faster: .videoPage
        case .delete: .libraryList
        default: .anywhere
        }
    }

    /// Application accelerators (the `.anywhere` keys).
    public var accelerators: [String] { keyScope == .anywhere ? keys : [] }

    /// The primary menu, in GNOME's order: what the app does, then Preferences, Keyboard
    /// Shortcuts and About, then Quit (one window: closing it is quitting, Ctrl+W still closes).
    public static let primaryMenu: [[FetchplayAction]] = [[.open], [.preferences, .shortcuts, .about], [.quit]]

    /// A library row's menu, each item for the row's link; only those that apply to the row show
    /// (`LibraryRowModel.menuActions`).
    public static let rowMenu: [FetchplayAction] = [.playItem, .pauseItem, .continueItem, .showItemInFiles,
                                                    .copyItemLink, .deleteItem]
}

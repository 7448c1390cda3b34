import Localization

/// Every command of the app and the window, each in one row (`row`): its scope, keys and where
/// they are heard, its words, its parameter and when it is enabled.
///
/// Buttons and menu items carry the detailed name (`win.start`), the keys are installed from the
/// row where its `keyScope` says, the Keyboard Shortcuts window lists the rows that have keys, and
/// tests activate the same actions, so all of them drive the same code. What each action does is
/// FetchUI's `ActionHandler`: one line per action, bound to the application or the window.
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

    /// The action's row. One switch naming every case without a `default`: a new action does
    /// not compile until it has its row (and so its words in the Keyboard Shortcuts window).
    public var row: Row {
        let link = "s" // the parameter of the actions that take a link (a GVariant string)
        return switch self {
        case .start: Row(.win, tr("Start the download")) { $0.hasStore && ($0.controls.showsStart || $0.controls.showsRetry) }
        case .pause: Row(.win, tr("Pause the download")) { $0.controls.canPause }
        case .continue: Row(.win, tr("Continue the download")) { $0.controls.canContinue }
        case .play: Row(.win, tr("Play the video")) { $0.controls.canPlay }
        case .pauseOrContinue:
            Row(.win, tr("Pause or continue the download"), keys: ["space"], heard: .unclaimed) {
                !$0.showsVideo && ($0.controls.canPause || $0.controls.canContinue)
            }
        case .focusURL: Row(.win, tr("Go to the link"), keys: ["<Control>l"])
        // Ctrl+V in the entry pastes into it; elsewhere it puts the link in the entry.
        case .pasteURL: Row(.win, tr("Paste a link"), keys: ["<Control>v"], heard: .unclaimed)
        case .back: Row(.win, tr("Back to the download"), keys: ["<Alt>Left"]) { $0.showsVideo }
        case .close: Row(.win, tr("Close the window"), keys: ["<Control>w"])
        case .open: Row(.app, tr("Open a video file"), keys: ["<Control>o"], menu: tr("_Open Video…"))
        case .quit: Row(.app, tr("Quit"), keys: ["<Control>q"], menu: tr("_Quit"))
        case .preferences: Row(.app, tr("Preferences"), keys: ["<Control>comma"], menu: tr("_Preferences"))
        case .shortcuts: Row(.app, tr("Keyboard shortcuts"), keys: ["<Control>question"], menu: tr("_Keyboard Shortcuts"))
        case .about: Row(.app, tr("About Fetchplay"), menu: tr("_About Fetchplay"))
        case .playLink: Row(.app, tr("Play a downloaded video"), parameter: link)
        case .showLink: Row(.app, tr("Show a download"), parameter: link)
        case .browserDownload: Row(.app, tr("Download a link from the browser"), parameter: link)
        case .togglePlayback: Row(.win, tr("Play or pause"), keys: ["space"], heard: .videoPage) { $0.videoIsReady }
        case .seekForward: Row(.win, tr("Forward 5 seconds"), keys: ["Right"], heard: .videoPage) { $0.videoIsReady }
        case .seekBackward: Row(.win, tr("Back 5 seconds"), keys: ["Left"], heard: .videoPage) { $0.videoIsReady }
        case .volumeUp: Row(.win, tr("Louder"), keys: ["Up"], heard: .videoPage) { $0.showsVideo }
        case .volumeDown: Row(.win, tr("Quieter"), keys: ["Down"], heard: .videoPage) { $0.showsVideo }
        case .mute: Row(.win, tr("Mute or unmute"), keys: ["m"], heard: .videoPage) { $0.showsVideo }
        case .fullscreen: Row(.win, tr("Fullscreen"), keys: ["f", "F11"], heard: .videoPage) { $0.showsVideo }
        case .leaveFullscreen: Row(.win, tr("Leave fullscreen"), keys: ["Escape"], heard: .videoPage) { $0.isFullscreen }
        case .startOver: Row(.win, tr("Play from the start")) { $0.videoIsReady }
        case .slower: Row(.win, tr("Slower"), keys: ["bracketleft"], heard: .videoPage) { $0.videoIsReady }
        case .faster: Row(.win, tr("Faster"), keys: ["bracketright"], heard: .videoPage) { $0.videoIsReady }
        case .delete: Row(.win, tr("Delete the video"), keys: ["Delete", "KP_Delete"], heard: .libraryList) { $0.canDelete }
        // Ctrl+Z in the entry undoes typing; elsewhere it brings a deleted video back.
        case .undo: Row(.win, tr("Undo the deletion"), keys: ["<Control>z"], heard: .unclaimed) { $0.canUndo }
        case .openFolder: Row(.win, tr("Open the downloads folder")) { $0.hasLibrary }
        case .find: Row(.win, tr("Find in the library"), keys: ["<Control>f"]) { $0.hasLibrary && !$0.showsVideo }
        case .playItem: Row(.win, tr("Play this video"), menu: tr("_Play"), parameter: link) { $0.hasLibrary }
        case .pauseItem: Row(.win, tr("Pause this download"), menu: tr("_Pause"), parameter: link) { $0.hasLibrary }
        case .continueItem: Row(.win, tr("Continue this download"), menu: tr("_Continue"), parameter: link) { $0.hasLibrary }
        case .showItemInFiles: Row(.win, tr("Show this video in Files"), menu: tr("Show in _Files"), parameter: link) { $0.hasLibrary }
        case .copyItemLink: Row(.win, tr("Copy this video's link"), menu: tr("Copy _Link"), parameter: link) { $0.hasLibrary }
        case .deleteItem: Row(.win, tr("Delete this video"), menu: tr("_Delete"), parameter: link) { $0.hasLibrary }
        }
    }

    /// The GAction name without its scope.
    public var name: String { rawValue }

    /// "win.start", as buttons and accelerators name it.
    public var detailedName: String { "\(row.scope.rawValue).\(name)" }

    /// The primary menu, in GNOME's order: what the app does, then Preferences, Keyboard
    /// Shortcuts and About, then Quit (one window: closing it is quitting, Ctrl+W still closes).
    public static let primaryMenu: [[FetchplayAction]] = [[.open], [.preferences, .shortcuts, .about], [.quit]]

    /// A library row's menu, each item for the row's link; only those that apply to the row show
    /// (`LibraryRowModel.menuActions`).
    public static let rowMenu: [FetchplayAction] = [.playItem, .pauseItem, .continueItem, .showItemInFiles,
                                                    .copyItemLink, .deleteItem]
}

extension FetchplayAction {
    /// One action's row of the table.
    public struct Row: Sendable {
        /// Whose action it is: the application's (`app.*`, with or without a window) or the window's.
        public var scope: Scope
        /// A short description, as the Keyboard Shortcuts window shows it.
        public var title: String
        /// The keys, in GTK's trigger syntax.
        public var keys: [String]
        /// Where the keys are heard.
        public var keyScope: KeyScope
        /// The words of the action's item in a menu (`primaryMenu`, `rowMenu`), the underscore
        /// before its access key; nil for an action no menu shows.
        public var menuLabel: String?
        /// The type of the action's parameter (a GVariant type string), or nil for none: the
        /// notification, browser and library row actions take the link they are about.
        public var parameterType: String?
        /// Whether the action can run in the window's situation: buttons grey out and keys fall
        /// through to other widgets when it says no. The application's actions always can.
        public var isEnabled: @Sendable (ActionContext) -> Bool

        init(_ scope: Scope, _ title: String, keys: [String] = [], heard keyScope: KeyScope = .anywhere,
             menu menuLabel: String? = nil, parameter parameterType: String? = nil,
             enabled isEnabled: @escaping @Sendable (ActionContext) -> Bool = { _ in true }) {
            (self.scope, self.title, self.keys, self.keyScope) = (scope, title, keys, keyScope)
            (self.menuLabel, self.parameterType, self.isEnabled) = (menuLabel, parameterType, isEnabled)
        }

        /// Application accelerators (the `.anywhere` keys).
        public var accelerators: [String] { keyScope == .anywhere ? keys : [] }
    }

    public enum Scope: String, Sendable { case app, win }

    /// Where an action's keys are heard: the groups of the Keyboard Shortcuts window, in their order.
    public enum KeyScope: CaseIterable, Sendable {
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

        /// The group's title in the Keyboard Shortcuts window: where these keys work.
        public var title: String {
            switch self {
            case .anywhere: tr("General")
            case .unclaimed: tr("Outside the link entry")
            case .videoPage: tr("While a video shows")
            case .libraryList: tr("In the library")
            }
        }
    }
}

/// What decides which of the window's actions can run, at one moment: the window reads it once
/// each time it refreshes and asks every row (`FetchplayAction.Row.isEnabled`).
public struct ActionContext: Sendable, Equatable {
    /// The selected download's controls and what the entry holds.
    public var controls: ControlState
    /// The window has its store of downloads and videos (the cache folder could be opened).
    public var hasStore: Bool
    public var hasLibrary: Bool
    /// The video page shows.
    public var showsVideo: Bool
    /// The video page shows a video that can play, seek and pause.
    public var videoIsReady: Bool
    public var isFullscreen: Bool
    /// The library's selected video (or one of those selected) can be deleted now.
    public var canDelete: Bool
    /// The undo bar offers a deletion back.
    public var canUndo: Bool

    public init(controls: ControlState, hasStore: Bool, hasLibrary: Bool, showsVideo: Bool, videoIsReady: Bool,
                isFullscreen: Bool, canDelete: Bool, canUndo: Bool) {
        (self.controls, self.hasStore, self.hasLibrary, self.showsVideo) = (controls, hasStore, hasLibrary, showsVideo)
        (self.videoIsReady, self.isFullscreen, self.canDelete, self.canUndo) = (videoIsReady, isFullscreen, canDelete, canUndo)
    }
}

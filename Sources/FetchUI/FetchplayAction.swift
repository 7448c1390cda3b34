/// Every command of the app and the window, in one table: its scope, name and keys.
///
/// Buttons carry the detailed name (`win.start`), the application maps the accelerators, and
/// tests activate the same actions, so all three drive the same code.
public enum FetchplayAction: String, CaseIterable, Sendable {
    case start
    case pause
    case `continue`
    case play
    case pauseOrContinue = "pause-or-continue"
    case focusURL = "focus-url"
    case back
    case open
    case quit
    // Playback: enabled only while the video page shows, so their plain keys (Space, arrows,
    // M, F) reach other widgets everywhere else.
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

    public enum Scope: String, Sendable { case app, win }

    public var scope: Scope {
        switch self {
        case .open, .quit: .app
        default: .win
        }
    }

    /// The GAction name without its scope.
    public var name: String { rawValue }

    /// "win.start", as buttons and accelerators name it.
    public var detailedName: String { "\(scope.rawValue).\(name)" }

    /// Accelerators that work wherever the focus is.
    public var accelerators: [String] {
        switch self {
        case .focusURL: ["<Control>l"]
        case .open: ["<Control>o"]
        case .quit: ["<Control>q"]
        case .back: ["<Alt>Left"]
        // Plain keys are safe as accelerators only because these actions are disabled off the
        // video page (a disabled action lets the key through to the entry).
        case .seekForward: ["Right"]
        case .seekBackward: ["Left"]
        case .volumeUp: ["Up"]
        case .volumeDown: ["Down"]
        case .mute: ["m"]
        case .fullscreen: ["f"]
        case .leaveFullscreen: ["Escape"]
        case .slower: ["bracketleft"]
        case .faster: ["bracketright"]
        default: []
        }
    }

    /// Keys that work only when the focused widget does not use them (Space in the entry types a
    /// space, on a button presses it): installed as a bubble-phase shortcut on the window.
    public var unclaimedKeys: [String] {
        switch self {
        case .pauseOrContinue: ["space"]
        // Ctrl+Z in the entry undoes typing; elsewhere it brings a deleted video back.
        case .undo: ["<Control>z"]
        // Space on a focused video control presses it; anywhere else on the video page it toggles.
        case .togglePlayback: ["space"]
        default: []
        }
    }
}

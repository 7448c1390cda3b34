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
        default: []
        }
    }

    /// Keys that work only when the focused widget does not use them (Space in the entry types a
    /// space, on a button presses it): installed as a bubble-phase shortcut on the window.
    public var unclaimedKeys: [String] {
        switch self {
        case .pauseOrContinue: ["space"]
        default: []
        }
    }
}

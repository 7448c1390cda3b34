import Localization

/// What people read about each action: the Keyboard Shortcuts window lists every action that
/// has keys under the title of where its keys work.
///
/// The switches name every case without a `default`, so a new action does not compile until it
/// has words here (and so cannot be missing from the shortcuts window).
extension FetchplayAction {
    /// A short description, as the Keyboard Shortcuts window shows it.
    public var title: String {
        switch self {
        case .start: tr("Start the download")
        case .pause: tr("Pause the download")
        case .continue: tr("Continue the download")
        case .play: tr("Play the video")
        case .pauseOrContinue: tr("Pause or continue the download")
        case .focusURL: tr("Go to the link")
        case .pasteURL: tr("Paste a link")
        case .back: tr("Back to the download")
        case .close: tr("Close the window")
        case .open: tr("Open a video file")
        case .quit: tr("Quit")
        case .preferences: tr("Preferences")
        case .shortcuts: tr("Keyboard shortcuts")
        case .about: tr("About Fetchplay")
        case .playLink: tr("Play a downloaded video")
        case .showLink: tr("Show a download")
        case .browserDownload: tr("Download a link from the browser")
        case .togglePlayback: tr("Play or pause")
        case .seekForward: tr("Forward 5 seconds")
        case .seekBackward: tr("Back 5 seconds")
        case .volumeUp: tr("Louder")
        case .volumeDown: tr("Quieter")
        case .mute: tr("Mute or unmute")
        case .fullscreen: tr("Fullscreen")
        case .leaveFullscreen: tr("Leave fullscreen")
        case .startOver: tr("Play from the start")
        case .slower: tr("Slower")
        case .faster: tr("Faster")
        case .delete: tr("Delete the video")
        case .undo: tr("Undo the deletion")
        case .openFolder: tr("Open the downloads folder")
        case .find: tr("Find in the library")
        case .playItem: tr("Play this video")
        case .pauseItem: tr("Pause this download")
        case .continueItem: tr("Continue this download")
        case .showItemInFiles: tr("Show this video in Files")
        case .copyItemLink: tr("Copy this video's link")
        case .deleteItem: tr("Delete this video")
        }
    }

    /// The words of the action's item in a menu (`primaryMenu`, `rowMenu`), the underscore
    /// before its access key; nil for an action no menu shows.
    public var menuLabel: String? {
        switch self {
        case .open: tr("_Open Video…")
        case .preferences: tr("_Preferences")
        case .shortcuts: tr("_Keyboard Shortcuts")
        case .about: tr("_About Fetchplay")
        case .quit: tr("_Quit")
        case .playItem: tr("_Play")
        case .pauseItem: tr("_Pause")
        case .continueItem: tr("_Continue")
        case .showItemInFiles: tr("Show in _Files")
        case .copyItemLink: tr("Copy _Link")
        case .deleteItem: tr("_Delete")
        default: nil
        }
    }
}

extension FetchplayAction.KeyScope {
    /// The group's title in the Keyboard Shortcuts window: where these keys work.
    public var title: String {
        switch self {
        case .anywhere: tr("General")
        case .unclaimed: tr("Outside the link entry")
        case .videoPage: tr("While a video shows")
        case .libraryList: tr("In the library")
        }
    }

    /// The order of the groups in the Keyboard Shortcuts window.
    public static let displayOrder: [Self] = [.anywhere, .unclaimed, .videoPage, .libraryList]
}

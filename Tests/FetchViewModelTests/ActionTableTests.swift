import ThreadKit
import Testing
@testable import FetchViewModel

/// The one table of actions: the menus are made from it, and a library row's menu and button
/// name its row actions, which take the row's link as their parameter.
struct ActionTableTests {
    func row(_ activity: LibraryRowModel.Activity) -> LibraryRowModel {
        LibraryRowModel(url: "http://example.com/a.webm", title: "a.webm", detail: "", activity: activity,
                        fraction: nil, videoPath: nil, hasDuration: false, bytes: 0)
    }

    @Test(arguments: [
        (LibraryRowModel.Activity.finished, [FetchplayAction.playItem, .showItemInFiles, .copyItemLink, .deleteItem], nil),
        (.downloading, [.pauseItem, .showItemInFiles, .copyItemLink, .deleteItem], .pauseItem),
        (.waiting, [.pauseItem, .showItemInFiles, .copyItemLink, .deleteItem], .pauseItem),
        (.paused, [.continueItem, .showItemInFiles, .copyItemLink, .deleteItem], .continueItem),
        (.failed, [.continueItem, .showItemInFiles, .copyItemLink, .deleteItem], .continueItem),
    ] as [(LibraryRowModel.Activity, [FetchplayAction], FetchplayAction?)])
    func aRowOffersWhatAppliesToIt(activity: LibraryRowModel.Activity, menu: [FetchplayAction],
                                   button: FetchplayAction?) {
        #expect(row(activity).menuActions == menu)
        #expect(row(activity).toggleAction == button)
    }

    @Test func everyMenuItemHasWordsAndEveryRowActionTakesTheLink() {
        for action in FetchplayAction.primaryMenu.joined() + FetchplayAction.rowMenu {
            #expect(action.row.menuLabel?.isEmpty == false, "\(action) has no menu label")
        }
        for action in FetchplayAction.rowMenu {
            let row = action.row
            #expect(row.parameterType == "s" && row.scope == .win && row.keys.isEmpty, "\(action)")
        }
    }

    /// The window's situation, one fact changed from a plain one: the download page, a download
    /// paused with its partial, no video, a library with nothing to delete or undo.
    func context(_ change: (inout ActionContext) -> Void = { _ in }) -> ActionContext {
        var context = ActionContext(controls: ControlState(state: .paused, progress: nil, hasPartial: true),
                                    hasStore: true, hasLibrary: true, showsVideo: false, videoIsReady: false,
                                    isFullscreen: false, canDelete: false, canUndo: false)
        change(&context)
        return context
    }

    /// Which actions each situation enables, read from the rows: the download page's keys never
    /// reach the player, the video page's Space never pauses the download, the application's
    /// actions always run.
    @Test func eachRowSaysWhenItsActionIsEnabled() {
        func enabled(_ context: ActionContext) -> Set<FetchplayAction> {
            Set(FetchplayAction.allCases.filter { $0.row.isEnabled(context) })
        }
        let always: Set<FetchplayAction> = [.focusURL, .pasteURL, .close, .open, .quit, .preferences, .shortcuts, .about,
                                            .playLink, .showLink, .browserDownload]
        let library: Set<FetchplayAction> = [.openFolder, .find, .playItem, .pauseItem, .continueItem, .showItemInFiles,
                                             .copyItemLink, .deleteItem]
        #expect(enabled(context()) == always.union(library).union([.continue, .pauseOrContinue]))
        #expect(enabled(context { $0.hasStore = false; $0.hasLibrary = false; $0.controls = ControlState(state: .idle, progress: nil, hasPartial: false) })
                == always)
        #expect(enabled(context { $0.controls = ControlState(state: .idle, progress: nil, hasPartial: false, entryIsNew: true) })
                == always.union(library).union([.start]))
        let video: Set<FetchplayAction> = [.back, .volumeUp, .volumeDown, .mute, .fullscreen]
        #expect(enabled(context { $0.showsVideo = true }) == always.union(library).union(video).union([.continue]).subtracting([.find]))
        let ready: Set<FetchplayAction> = [.togglePlayback, .seekForward, .seekBackward, .startOver, .slower, .faster]
        #expect(enabled(context { $0.showsVideo = true; $0.videoIsReady = true; $0.isFullscreen = true })
                == always.union(library).union(video).union(ready).union([.continue, .leaveFullscreen]).subtracting([.find]))
        #expect(enabled(context { $0.canDelete = true; $0.canUndo = true }).isSuperset(of: [.delete, .undo]))
    }
}

/// Observers: each one added is heard, in order; one observed through a token stops with it.
@MainActor
struct ObserversTests {
    @Test func aDroppedTokenStopsOnlyItsObserver() {
        let observers = Observers<Int>()
        var heard: [String] = []
        observers.add { heard.append("kept \($0)") }
        var token: ObserverToken? = observers.observe { heard.append("token \($0)") }
        observers.notify(1)
        #expect(heard == ["kept 1", "token 1"])
        #expect(token != nil)
        token = nil
        observers.notify(2)
        #expect(heard == ["kept 1", "token 1", "kept 2"])
    }
}

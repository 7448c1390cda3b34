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
            #expect(action.menuLabel?.isEmpty == false, "\(action) has no menu label")
        }
        for action in FetchplayAction.rowMenu {
            #expect(action.parameterType == "s" && action.scope == .win && action.keys.isEmpty, "\(action)")
        }
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

import CGtk
import FetchCore
import FetchPlayer
import Foundation
import GLibSupport
import Testing
import TestSupport
@testable import FetchUI

/// Notifications on the tests' session bus, where a notification server stands in for the
/// desktop's (`DesktopPeers`): a download that ends while another window has the focus (under
/// openbox, focus given by the window manager) reaches the server as an
/// `org.freedesktop.Notifications.Notify` call from GLib's own backend; the server's
/// `ActionInvoked` (a click) brings the window back on that download, Play plays it, and
/// `org.freedesktop.Application.ActivateAction` over D-Bus (`gdbus call`) plays it too.
@Suite(.serialized, .enabled(if: DesktopPeers.isAvailable, "needs dbus-daemon, gdbus and python3-gi"))
@MainActor
struct NotificationTests {
    let server: FaultServer
    let cache: TemporaryDirectory

    init() throws {
        server = try FaultServer()
        cache = try TemporaryDirectory(prefix: "fetchplay-notify")
    }

    /// Serves a real clip at `path`; returns its link.
    func serveClip(_ path: String) throws -> String {
        let clip = try Clips.webm(seconds: 2, audio: false)
        server.serve(path, body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"\(path)\"")
        return server.url(path)
    }

    /// A plain window of "another app", presented so the window manager gives it the focus.
    func otherApp(away window: MainWindow) throws -> UnsafeMutablePointer<GtkWidget> {
        let other = gtk_window_new()!
        gtk_window_set_title(other.as(GtkWindow.self), "Another app")
        gtk_window_set_default_size(other.as(GtkWindow.self), 300, 200)
        gtk_window_present(other.as(GtkWindow.self))
        try #require(runMainLoop(timeout: .seconds(10), until: {
            gtk_window_is_active(other.as(GtkWindow.self)) != 0 && !RealInput.isActive(window)
        }), "the other window did not take the focus: \(RealInput.describeScreen("notify-focus"))")
        return other
    }

    /// The Notify calls made since `count` calls, with the id the server gave each (it counts
    /// from 1 in the order received).
    func notifications(after count: Int) throws -> [(id: UInt32, call: DesktopPeers.Call)] {
        let peers = try #require(GtkHarness.peers)
        return peers.calls("Notify").enumerated().dropFirst(count).map { (UInt32($0.offset + 1), $0.element) }
    }

    func notifyCount() -> Int { GtkHarness.peers?.calls("Notify").count ?? 0 }

    /// Puts `url` in `window`'s link field, starts it and waits until the video is complete.
    func download(_ url: String, in window: MainWindow) -> Bool {
        window.downloadPage.urlText = url
        window.activate(.start)
        return runMainLoop(timeout: .seconds(20), until: { window.store?.state.isCompleted == true })
    }

    /// Serves a clip at `path` and downloads it in a window that is then closed; returns a new
    /// window on the same cache (as the next start of the app), and the clip's link.
    func newWindowAfterDownloading(_ path: String) throws -> (MainWindow, String) {
        let url = try serveClip(path)
        let first = try RealInput.window(cacheRoot: cache.path)
        #expect(download(url, in: first))
        GtkHarness.close(first)
        return (try RealInput.window(cacheRoot: cache.path), url)
    }

    @Test func aDownloadThatFinishesUnseenIsNotifiedAndAClickBringsItBack() throws {
        let peers = try #require(GtkHarness.peers), bus = try #require(GtkHarness.bus)
        let url = try serveClip("/holiday.webm")
        let other = try serveClip("/other.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let away = try otherApp(away: window)
        defer { gtk_window_destroy(away.as(GtkWindow.self)) }

        let before = notifyCount()
        #expect(download(url, in: window))
        #expect(runMainLoop(timeout: .seconds(10), until: { notifyCount() == before + 1 }), "no Notify call")
        let (id, notify) = try #require(try notifications(after: before).first)
        // Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout)
        #expect(notify.args.count == 8)
        #expect(notify.args[3] as? String == "Download finished")
        #expect(notify.args[4] as? String == "holiday.webm", "the file's name: \(notify.args)")
        #expect(notify.args[5] as? [String] == ["default", "", "app.play-link('\(url)')", "Play"], "\(notify.args[5])")
        #expect((notify.args[6] as? [String: Any])?["desktop-entry"] as? String == AppInfo.id)

        // Meanwhile another link was typed in the entry; a click on the notification brings the
        // window back on the finished download, over the other window.
        window.downloadPage.urlText = other
        #expect(runMainLoop(timeout: .seconds(5), until: { window.store?.url != url && !window.downloadPage.isPlayVisible }))
        try peers.invoke(notification: id, action: "default")
        #expect(runMainLoop(timeout: .seconds(10), until: { window.store?.url == url && RealInput.isActive(window) }),
                "selected \(window.store?.url ?? "nothing"): \(RealInput.describeScreen("notify-click"))")
        #expect(window.visiblePage == "download" && window.downloadPage.isPlayVisible)

        // The app's Play action over D-Bus, as the notification's button (or a shell) calls it.
        let name = try #require(GtkHarness.busName)
        let call = try bus.gdbus(["call", "--session", "--dest", name, "--object-path", "/io/github/fetchplay/Fetchplay",
                                  "--method", "org.freedesktop.Application.ActivateAction",
                                  "play-link", "[<'\(url)'>]", "{}"]) { runMainLoop(for: .seconds(0.01)) }
        #expect(call.status == 0, "gdbus: \(call.output)")
        #expect(runMainLoop(timeout: .seconds(10), until: {
            window.visiblePage == "video" && window.playback.player?.state == .playing && window.playback.view.framesShown >= 3
        }), "the video does not play: \(String(describing: window.playback.player?.state))")
        #expect(window.playback.player?.path == window.store?.state.completedPath)
        window.playback.player?.close()
    }

    @Test func thePlayButtonOfTheNotificationPlaysTheVideo() throws {
        let peers = try #require(GtkHarness.peers)
        let url = try serveClip("/button.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let away = try otherApp(away: window)
        defer { gtk_window_destroy(away.as(GtkWindow.self)) }
        let before = notifyCount()
        window.downloadPage.urlText = url
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { notifyCount() == before + 1 }))
        let (id, notify) = try #require(try notifications(after: before).first)
        let actions = try #require(notify.args[5] as? [String])
        let play = try #require(actions.firstIndex(of: "Play").map { actions[$0 - 1] })
        try peers.invoke(notification: id, action: play)
        #expect(runMainLoop(timeout: .seconds(10), until: {
            window.visiblePage == "video" && window.playback.player?.state == .playing
        }), "Play on the notification did not play")
        #expect(runMainLoop(timeout: .seconds(5), until: { RealInput.isActive(window) }), "the window did not come back")
        window.playback.player?.close()
    }

    /// A notification's Play reaching a window just opened for it (as D-Bus activation starts
    /// the app): the video's record is read in the background, and it plays once read.
    @Test func playFromANotificationInAWindowJustOpenedPlays() throws {
        let (window, url) = try newWindowAfterDownloading("/later.webm")
        defer { GtkHarness.close(window) }
        window.playLink(url)
        #expect(runMainLoop(timeout: .seconds(10), until: {
            window.visiblePage == "video" && window.playback.player?.state == .playing
        }), "Play did not play: \(String(describing: window.store?.state))")
        #expect(window.playback.player?.path == window.store?.state.completedPath)
        window.playback.player?.close()
    }

    /// Start on a link already in the library only shows it: nothing ended, nothing to say,
    /// also with another window in front.
    @Test func aVideoAlreadyDownloadedSaysNothing() throws {
        let (window, url) = try newWindowAfterDownloading("/kept.webm")
        defer { GtkHarness.close(window) }
        let away = try otherApp(away: window)
        defer { gtk_window_destroy(away.as(GtkWindow.self)) }
        let before = notifyCount()
        #expect(download(url, in: window))
        runMainLoop(for: .seconds(0.5))
        #expect(notifyCount() == before, "a notification for a video that was already there")
        #expect(window.notifier?.sent.isEmpty == true)
    }

    @Test func aFailureUnseenSaysWhyAndNothingIsSaidWhileTheWindowHasTheFocus() throws {
        server.serve("/gone.webm", body: TestData.bytes(count: 100, seed: 3), faults: [.status(404)])
        let seen = try serveClip("/seen.webm")
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }

        // In front of the person: the ring says it, no notification.
        let before = notifyCount()
        #expect(download(seen, in: window))
        runMainLoop(for: .seconds(0.5))
        #expect(notifyCount() == before, "a notification while the window had the focus")
        #expect(window.notifier?.sent.isEmpty == true)

        let away = try otherApp(away: window)
        defer { gtk_window_destroy(away.as(GtkWindow.self)) }
        window.downloadPage.urlText = server.url("/gone.webm")
        window.activate(.start)
        #expect(runMainLoop(timeout: .seconds(20), until: { notifyCount() == before + 1 }), "no Notify for the failure")
        let (_, notify) = try #require(try notifications(after: before).first)
        #expect(notify.args[3] as? String == "Download failed")
        let body = notify.args[4] as? String ?? ""
        #expect(body.hasPrefix("gone.webm: ") && body.contains("404"), "the reason: \(body)")
        #expect(notify.args[5] as? [String] == ["default", ""], "no Play for a failure: \(notify.args[5])")
    }

    /// A video whose name is markup-like (from the server's `Content-Disposition`): the body GLib
    /// hands to `org.freedesktop.Notifications`, a field the specification makes markup, reads
    /// back as exactly that name once parsed as markup (as a server with `body-markup` parses it).
    @Test func aNameWithMarkupReachesTheNotificationAsItsText() throws {
        // No slash: names keep only what follows the last one.
        let name = #"Tom & Jerry <b>1<b> &amp; <span size="99999">x.webm"#
        let clip = try Clips.webm(seconds: 2, audio: false)
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        server.serve("/named", body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), etag: "\"named\"",
                     headers: [HTTPHeader("Content-Disposition", "attachment; filename*=UTF-8''\(encoded)")])
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        let away = try otherApp(away: window)
        defer { gtk_window_destroy(away.as(GtkWindow.self)) }
        let before = notifyCount()
        #expect(download(server.url("/named"), in: window))
        #expect(window.store?.state.completedPath.map { URL(fileURLWithPath: $0).lastPathComponent } == name)
        #expect(runMainLoop(timeout: .seconds(10), until: { notifyCount() == before + 1 }), "no Notify call")
        let (_, notify) = try #require(try notifications(after: before).first)
        let body = try #require(notify.args[4] as? String)
        #expect(Self.parsedMarkup(body) == name, "the body sent: \(body)")
        #expect(window.notifier?.sent.last?.body == name)
    }

    /// The text `markup` shows as, parsed as Pango markup (nil when it does not parse).
    static func parsedMarkup(_ markup: String) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard pango_parse_markup(markup, -1, 0, nil, &text, nil, nil) != 0, let text else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// GNOME lists an app under Settings › Notifications by its desktop file, named after the
    /// app id (the notification's desktop-entry hint) and saying that it notifies.
    @Test func theDesktopFileSaysTheAppNotifies() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let entry = try String(contentsOf: url.appendingPathComponent("data/\(AppInfo.id).desktop"), encoding: .utf8)
        #expect(entry.split(separator: "\n").contains("X-GNOME-UsesNotifications=true"))
    }
}

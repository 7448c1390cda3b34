import CGtk
import FetchCore
import FetchViewModel
import Foundation
import TestSupport
import Testing
@testable import FetchUI

/// The window's shape under a real window manager: resized through openbox (`xdotool
/// windowsize`), clicked with XTest. Screenshots in `artifacts/ui/layout-*.png`.
@Suite(.serialized) @MainActor
struct WindowLayoutTests {
    let cache: TemporaryDirectory

    init() throws {
        cache = try TemporaryDirectory(prefix: "fetchplay-layout")
    }

    /// Asks the window manager for `width`×`height` and waits until GTK has laid the window out
    /// at that size.
    func resize(_ window: MainWindow, _ width: Int, _ height: Int) throws {
        try Desktop.xdotool(["windowsize", "\(try RealInput.xid(window))", "\(width)", "\(height)"])
        let surface = try #require(gtk_native_get_surface(window.widget.opaque))
        #expect(runMainLoop(timeout: .seconds(5), until: {
            Int(gdk_surface_get_width(surface)) == width && Int(gtk_widget_get_width(window.widget)) <= width
        }), "the window is \(gdk_surface_get_width(surface)) wide, not \(width)")
        runMainLoop(for: .seconds(0.2)) // the relayout after the size change
    }

    /// Whether `widget` shows and lies entirely inside the window.
    func isInside(_ widget: UnsafeMutablePointer<GtkWidget>, _ window: MainWindow) -> Bool {
        var bounds = graphene_rect_t()
        guard gtk_widget_is_visible(widget) != 0,
              gtk_widget_compute_bounds(widget, window.widget, &bounds) != 0 else { return false }
        return bounds.origin.x >= 0 && bounds.origin.y >= 0
            && Int32(bounds.origin.x + bounds.size.width) <= gtk_widget_get_width(window.widget)
            && Int32(bounds.origin.y + bounds.size.height) <= gtk_widget_get_height(window.widget)
    }

    @Test func aPhoneSizedWindowPutsTheLibraryBehindAToggle() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        #expect(!window.isNarrow && window.isLibraryVisible)

        // At once from wide to a phone's width, as a window manager does when a window is
        // tiled or opened on a small screen: the wide layout's minimum is never the window's.
        try resize(window, 360, 640)
        #expect(window.isNarrow)
        #expect(!window.isLibraryVisible, "the library still squeezes in beside the ring")
        for widget in [window.ui.entry, window.ui.startButton, window.ring.widget, window.ui.titleLabel] {
            #expect(isInside(widget, window), "cut off at 360 px")
        }
        #expect(isInside(window.ui.libraryToggle, window))
        GtkHarness.screenshot(window.widget, "layout-narrow")

        try RealInput.click(window.ui.libraryToggle)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.isLibraryVisible }), "the toggle did not show the library")
        #expect(gtk_widget_get_visible(window.ui.downloadColumn) == 0)
        runMainLoop(for: .seconds(0.3))
        #expect(gtk_widget_get_width(window.widget) <= 360, "the library widened the window to \(gtk_widget_get_width(window.widget))")
        #expect(isInside(try #require(window.library?.view.widget), window))
        GtkHarness.screenshot(window.widget, "layout-narrow-library")

        // Ctrl+L brings the download column back, the link ready to type.
        try RealInput.key("ctrl+l")
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_visible(window.ui.downloadColumn) != 0 }))
        #expect(RealInput.focusIsIn(window, window.ui.entry))

        // The video page fits too.
        window.openFile(path: try Clips.webm(seconds: 2, audio: false))
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.framesShown >= 1 }))
        runMainLoop(for: .seconds(0.3))
        #expect(gtk_widget_get_width(window.widget) <= 360, "the video page widened the window")
        #expect(isInside(window.playback.view.controls.fullscreenButton, window))
        GtkHarness.screenshot(window.widget, "layout-narrow-video")
        try RealInput.key("alt+Left")

        // Wide again: the library beside the ring, no toggle.
        try resize(window, 1100, 700)
        #expect(!window.isNarrow && window.isLibraryVisible)
        #expect(gtk_widget_get_visible(window.ui.libraryToggle) == 0)
        #expect(isInside(try #require(window.library?.view.widget), window))
    }

    @Test func fullscreenVideoIsEdgeToEdge() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.openFile(path: try Clips.webm(seconds: 4, audio: false))
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.framesShown >= 3 }))
        #expect(String(cString: gtk_window_get_title(window.widget.as(GtkWindow.self))).hasSuffix(".webm"),
                "the title does not name the video")
        // In the window, the bars at rest sit above and below the frame, not over it, on the
        // picture's black (not the window's background).
        runMainLoop(for: .seconds(0.3))
        let view = window.playback.view, controls = view.controls
        var picture = graphene_rect_t(), top = graphene_rect_t(), bottom = graphene_rect_t()
        #expect(gtk_widget_compute_bounds(view.picture, view.widget, &picture) != 0)
        #expect(gtk_widget_compute_bounds(controls.top, view.widget, &top) != 0)
        #expect(gtk_widget_compute_bounds(controls.bottom, view.widget, &bottom) != 0)
        let frame = try #require(view.frameBounds)
        let frameTop = Double(picture.origin.y) + frame.y, frameBottom = frameTop + frame.height
        #expect(frameTop >= Double(top.origin.y + top.size.height), "the top bar covers the frame")
        #expect(frameBottom <= Double(bottom.origin.y), "the bottom bar covers the frame")
        GtkHarness.screenshot(window.widget, "layout-video-window")
        // Beside the bars' rounded ends (their margin), above and below the frame: opaque black.
        let pixels = try #require(GtkHarness.screenshot(view.widget, "layout-video-view"))
        let side = Double(picture.origin.x) + 3
        for y in [Double(top.origin.y) + 3, Double(bottom.origin.y + bottom.size.height) - 3] {
            let seen = pixels[side, y]
            #expect(seen?.alpha == 1 && seen?.isClose(to: RGBAColor(red: 0, green: 0, blue: 0)) == true,
                    "at \(side),\(y): \(String(describing: seen))")
        }

        try RealInput.key("f")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.isFullscreen }))
        let surface = try #require(gtk_native_get_surface(window.widget.opaque))
        #expect(runMainLoop(timeout: .seconds(5), until: { gdk_surface_get_width(surface) == 1280 }))
        runMainLoop(for: .seconds(0.3))
        // The video view covers the whole window, the whole screen.
        var bounds = graphene_rect_t()
        #expect(gtk_widget_compute_bounds(window.playback.view.widget, window.widget, &bounds) != 0)
        #expect(bounds.origin.x == 0 && bounds.origin.y == 0, "the video starts at \(bounds.origin)")
        #expect(Int(bounds.size.width) == 1280 && Int(bounds.size.height) == 800, "the video is \(bounds.size)")
        // No room kept for the bars: the 4:3 frame is as tall as the screen.
        #expect(runMainLoop(timeout: .seconds(5), until: { view.frameBounds.map { Int($0.height.rounded()) } == 800 }),
                "the frame is \(String(describing: view.frameBounds))")
        #expect(gtk_widget_get_visible(window.ui.headerBar) == 0, "the header bar stays in fullscreen")
        GtkHarness.screenshot(window.widget, "layout-fullscreen")
        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { !window.playback.isFullscreen }))
        #expect(gtk_widget_get_visible(window.ui.headerBar) != 0, "the header bar did not come back")
        try RealInput.key("alt+Left")
        #expect(runMainLoop(timeout: .seconds(5), until: { window.visiblePage == "download" }))
        #expect(String(cString: gtk_window_get_title(window.widget.as(GtkWindow.self))) == "Fetchplay")
    }

    /// A double-click on the picture runs the window's fullscreen action, as F does (Escape
    /// leaves it).
    @Test func aDoubleClickOnTheVideoTogglesFullscreen() throws {
        let window = try RealInput.window(cacheRoot: cache.path)
        defer { GtkHarness.close(window) }
        window.openFile(path: try Clips.webm(seconds: 4, audio: false))
        #expect(runMainLoop(timeout: .seconds(10), until: { window.playback.view.framesShown >= 3 }))
        try RealInput.click(window.playback.view.picture, count: 2)
        #expect(runMainLoop(timeout: .seconds(5), until: { window.playback.isFullscreen }), "a double-click did not fullscreen")
        try RealInput.key("Escape")
        #expect(runMainLoop(timeout: .seconds(5), until: { !window.playback.isFullscreen }))
    }
}

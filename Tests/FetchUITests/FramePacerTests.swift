import CGLib
import CGtk
import Testing
import TestSupport
@testable import FetchPlayer
@testable import FetchUI

/// Frames handed to a picture in a real window, one per paint: two that come within one paint
/// are both shown, the second after the window's next paint; a third replaces the one waiting.
@Suite(.serialized) @MainActor
struct FramePacerTests {
    /// A small frame of `shade` grey (the pixels do not matter to the pacer).
    func frame(_ shade: UInt8) -> VideoFrame {
        let bytes = [UInt8](repeating: shade, count: 4 * 4 * 4)
        return VideoFrame(width: 4, height: 4, stride: 16, timestamp: nil,
                          bytes: bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) })
    }

    init() { _ = GtkHarness.app } // GTK initialised

    @Test func aFrameThatComesBeforeAPaintWaitsForIt() throws {
        let stage = try PacedPicture()
        defer { stage.close() }
        let pacer = stage.pacer!, picture = stage.picture
        var shown: [VideoFrame] { stage.shown }

        let first = frame(10), second = frame(20), third = frame(30)
        pacer.offer(first)
        #expect(shown.map(ObjectIdentifier.init) == [ObjectIdentifier(first)], "the first frame is shown at once")
        pacer.offer(second)
        #expect(shown.count == 1 && pacer.isHolding, "the second replaced the first before a paint")
        pacer.offer(third)
        #expect(pacer.replaced == 1)
        #expect(runMainLoop(timeout: .seconds(5), until: { shown.count == 2 }), "the waiting frame was never shown")
        #expect(shown.last === third && !pacer.isHolding)

        // Once painted, the next frame is shown at once again.
        #expect(runMainLoop(timeout: .seconds(5), until: { pacer.offerWouldShow }))
        pacer.offer(frame(40))
        #expect(shown.count == 3)
    }

    /// A frame waiting when the picture is hidden is older than the next one, shown at once:
    /// the next paint must not bring the older one back.
    @Test func aFrameWaitingWhenThePictureIsHiddenNeverComesBack() throws {
        let stage = try PacedPicture()
        defer { stage.close() }
        let pacer = stage.pacer!, picture = stage.picture
        var shown: [VideoFrame] { stage.shown }

        let first = frame(10), older = frame(20), newer = frame(30)
        pacer.offer(first)
        pacer.offer(older)
        #expect(pacer.isHolding)
        gtk_widget_set_visible(picture, 0)
        pacer.offer(newer)
        #expect(shown.last === newer && !pacer.isHolding && pacer.replaced == 1)
        gtk_widget_set_visible(picture, 1)
        #expect(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(picture) != 0 && pacer.offerWouldShow }))
        #expect(shown.last === newer, "the older frame came back")
    }

    @Test func anUnmappedPictureGetsEveryFrameAtOnce() throws {
        let picture = gtk_picture_new()!
        g_object_ref_sink(picture.rawObject)
        defer { g_object_unref(picture.rawObject) }
        var shown = 0
        let pacer = FramePacer(widget: picture) { _ in shown += 1 }
        for shade in [UInt8(1), 2, 3] { pacer.offer(frame(shade)) }
        #expect(shown == 3 && pacer.replaced == 0 && !pacer.isHolding)
    }
}

/// A picture mapped in a real window, with a pacer that records the frames it shows.
@MainActor
final class PacedPicture {
    let window = gtk_window_new()!
    let picture = gtk_picture_new()!
    private(set) var shown: [VideoFrame] = []
    private(set) var pacer: FramePacer?

    init() throws {
        gtk_window_set_child(window.as(GtkWindow.self), picture)
        gtk_window_set_default_size(window.as(GtkWindow.self), 200, 150)
        let picture = picture
        pacer = FramePacer(widget: picture) { [unowned self] frame in
            shown.append(frame)
            gtk_widget_queue_draw(picture) // as the paintable's invalidation does
        }
        gtk_window_present(window.as(GtkWindow.self))
        try #require(runMainLoop(timeout: .seconds(5), until: { gtk_widget_get_mapped(picture) != 0 }))
    }

    func close() { gtk_window_destroy(window.as(GtkWindow.self)) }
}

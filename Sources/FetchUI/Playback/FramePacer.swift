import CGtk
import FetchPlayer
import GLibSupport

/// Hands frames to the picture one per paint of its window.
///
/// Frames come in order, and two can come within one paint (the sink's timing jitters, or the
/// main loop was busy and the relay delivers two at once). Handing the second over at once would
/// replace the first before it was ever painted; instead it waits for the window's next paint
/// (`after-paint` of its frame clock) and is shown one refresh late. A third that comes while one
/// waits replaces it (`replaced`): the picture never falls behind by more than one frame.
@MainActor
final class FramePacer {
    private var connections: [SignalConnection] = []
    private let widget: UnsafeMutablePointer<GtkWidget>
    private var owned: [OwnedWidget] = []
    private let present: @MainActor (VideoFrame) -> Void
    /// The `after-paint` handler on the window's frame clock, while the widget is realized.
    private var clock: SignalConnection?
    /// A frame was handed over and the window has not painted since.
    private var unpainted = false
    private var waiting: VideoFrame?
    /// Frames replaced while they waited for a paint (never shown).
    private(set) var replaced = 0
    /// A frame waits for the next paint.
    var isHolding: Bool { waiting != nil }
    /// The next frame offered would be shown at once (the last one shown was painted).
    var offerWouldShow: Bool { !unpainted }

    init(widget: UnsafeMutablePointer<GtkWidget>, present: @escaping @MainActor (VideoFrame) -> Void) {
        self.widget = widget
        self.present = present
        widget.connect("realize") { [weak self] in self?.follow() }.store(in: &connections)
        widget.connect("unrealize") { [weak self] in self?.unfollow() }.store(in: &connections)
        owned = OwnedWidget.keep(widget)
    }

    /// Shows `frame` now, or after the next paint if the one shown was not painted yet. An
    /// unmapped picture is never painted: its frames are handed over at once.
    func offer(_ frame: VideoFrame) {
        if waiting != nil { replaced += 1 }
        guard unpainted, clock != nil, gtk_widget_get_mapped(widget) != 0 else {
            // One that waited from before the picture was unmapped is older: never shown after this.
            waiting = nil
            return show(frame)
        }
        waiting = frame
    }

    /// Forgets a waiting frame (another file, the picture emptied).
    func reset() {
        waiting = nil
        unpainted = false
    }

    private func show(_ frame: VideoFrame) {
        unpainted = true
        present(frame)
    }

    private func painted() {
        unpainted = false
        guard let next = waiting else { return }
        waiting = nil
        show(next)
    }

    private func follow() {
        unfollow()
        guard let frameClock = gtk_widget_get_frame_clock(widget) else { return }
        clock = frameClock.connect("after-paint") { [weak self] in self?.painted() }
    }

    private func unfollow() {
        clock = nil // disconnects
        // Nothing paints an unrealized picture: what waits is handed over now, as the newest.
        unpainted = false
        if let next = waiting {
            waiting = nil
            present(next)
        }
    }
}

import CGtk
import FetchViewModel
import Foundation
import GLibSupport
import Localization
import ThreadKit

/// The progress ring: a `GtkDrawingArea` that shows one fraction in one tone.
///
/// The owner sets `tone` and `fraction` (nil when the total is unknown); the view animates the
/// rest on the frame clock: the indeterminate spin while running without a total, and on
/// completion the arc closing and the checkmark being drawn (`doneDuration`). The tick callback
/// runs only while something moves and the widget is mapped. Accessible as a progress bar.
@MainActor
public final class RingView {
    private var connections: [SignalConnection] = []
    /// The drawing area; the view holds a reference to it.
    nonisolated(unsafe) public let widget: UnsafeMutablePointer<GtkWidget>
    private let ownedWidget: OwnedWidget

    /// The arc's tone; setting `.done` from another tone plays the completion animation.
    public var tone: RingFrame.Tone = .paused {
        didSet {
            guard tone != oldValue else { return }
            if tone == .done { beginDoneAnimation(from: fraction ?? 0) } else { doneAnimation = nil }
            changed()
        }
    }

    /// 0…1, or nil when the total is unknown (spins while `.running`).
    public var fraction: Double? = 0 {
        didSet { if fraction != oldValue { changed() } }
    }

    /// Seconds the completion animation takes.
    public static let doneDuration = 0.4
    /// Seconds one turn of the indeterminate arc takes.
    public static let spinPeriod = 1.2

    private var doneAnimation: (startFraction: Double, startTime: Int64?)?
    private var spinPhase = 0.0
    private var tickID: UInt32 = 0
    /// Microseconds, the frame clock's time at the last tick.
    private var lastFrameTime: Int64 = 0
    private var accessibleValue: (Int, String)?

    public init() {
        widget = fp_drawing_area_new_with_role(GTK_ACCESSIBLE_ROLE_PROGRESS_BAR)!
        ownedWidget = OwnedWidget(widget)
        gtk_widget_add_css_class(widget, "ring")
        gtk_widget_set_hexpand(widget, 1)
        gtk_widget_set_vexpand(widget, 1)
        gtk_drawing_area_set_content_width(widget.as(GtkDrawingArea.self), 240)
        gtk_drawing_area_set_content_height(widget.as(GtkDrawingArea.self), 240)
        fp_accessible_update_label(widget.opaque, tr("Download progress"))

        let box = CallbackBox(Weak(self))
        gtk_drawing_area_set_draw_func(widget.as(GtkDrawingArea.self), { _, cr, width, height, data in
            let view = CallbackBox<Weak<RingView>>.from(data).body.object
            nonisolated(unsafe) let cr = cr
            MainActor.assumeIsolated { view?.draw(cr!, width: Double(width), height: Double(height)) }
        }, box.retainedPointer(), releaseBox)

        widget.connect("map") { [weak self] in self?.updateTicking() }.store(in: &connections)
        widget.connect("unmap") { [weak self] in self?.stopTicking() }.store(in: &connections)
        updateAccessibleValue()
    }

    deinit {
        // The owned reference goes after this, with the stored properties.
        if tickID != 0 { gtk_widget_remove_tick_callback(widget, tickID) }
    }

    /// What the next draw shows.
    public var currentFrame: RingFrame {
        let label = fraction.map { "\(Int(($0 * 100).rounded(.down)))%" }
        switch tone {
        case .done:
            let (arc, check) = doneProgress
            return RingFrame(tone: .done, fraction: arc, checkmark: check)
        case .running where fraction == nil:
            return RingFrame(tone: .running, fraction: 0.25, spinStart: spinPhase)
        default:
            return RingFrame(tone: tone, fraction: fraction ?? 0, label: label)
        }
    }

    /// True while a frame-clock animation is running (the spin or the completion).
    public var isAnimating: Bool { tickID != 0 }

    /// Arc and checkmark progress of the completion animation at this moment.
    private var doneProgress: (arc: Double, check: Double) {
        guard let animation = doneAnimation else { return (1, 1) }
        let elapsed = animation.startTime.map { Double(lastFrameTime - $0) / 1_000_000 } ?? 0
        let t = min(max(elapsed / Self.doneDuration, 0), 1)
        let arcT = easeOut(min(t / 0.4, 1))
        let checkT = easeOut(max(0, (t - 0.35) / 0.65))
        return (animation.startFraction + (1 - animation.startFraction) * arcT, checkT)
    }

    private func beginDoneAnimation(from start: Double) {
        // Unmapped (nothing would tick) or animations turned off: show the end state at once.
        guard gtk_widget_get_mapped(widget) != 0, fp_widget_animations_enabled(widget) != 0 else {
            doneAnimation = nil
            return
        }
        doneAnimation = (min(max(start, 0), 1), nil)
    }

    private func changed() {
        gtk_widget_queue_draw(widget)
        updateTicking()
        updateAccessibleValue()
    }

    private func draw(_ cr: OpaquePointer, width: Double, height: Double) {
        let geometry = RingGeometry(width: width, height: height, scale: Double(gtk_widget_get_scale_factor(widget)))
        let layout = gtk_widget_create_pango_layout(widget, nil)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        RingDrawing.draw(cr, geometry: geometry, frame: currentFrame, palette: RingPalette(themeOf: widget), layout: layout)
    }

    // MARK: Frame clock

    private var needsTicks: Bool {
        (tone == .running && fraction == nil) || (tone == .done && doneAnimation != nil)
    }

    private func updateTicking() {
        if needsTicks, tickID == 0, gtk_widget_get_mapped(widget) != 0 {
            let box = CallbackBox(Weak(self))
            tickID = gtk_widget_add_tick_callback(widget, { _, clock, data in
                let view = CallbackBox<Weak<RingView>>.from(data).body.object
                nonisolated(unsafe) let clock = clock
                return MainActor.assumeIsolated { view?.tick(Int64(gdk_frame_clock_get_frame_time(clock))) ?? false } ? 1 : 0
            }, box.retainedPointer(), releaseBox)
        } else if !needsTicks {
            stopTicking()
        }
    }

    private func stopTicking() {
        guard tickID != 0 else { return }
        gtk_widget_remove_tick_callback(widget, tickID)
        tickID = 0
    }

    /// One frame; returns whether to keep ticking.
    private func tick(_ frameTime: Int64) -> Bool {
        lastFrameTime = frameTime
        if tone == .running && fraction == nil {
            spinPhase = (Double(frameTime) / 1_000_000 / Self.spinPeriod).truncatingRemainder(dividingBy: 1)
        }
        if var animation = doneAnimation {
            if animation.startTime == nil { animation.startTime = frameTime; doneAnimation = animation }
            if doneProgress.check >= 1 { doneAnimation = nil }
        }
        gtk_widget_queue_draw(widget)
        if !needsTicks { tickID = 0; return false }
        return true
    }

    private func updateAccessibleValue() {
        let percent = Int(((fraction ?? 0) * 100).rounded(.down))
        let text: String = switch tone {
        case .done: tr("Complete")
        case .failed: String(format: tr("Failed at %1$d percent"), percent)
        case .paused: String(format: tr("Paused at %1$d percent"), percent)
        case .running: fraction == nil ? tr("Downloading") : String(format: tr("%1$d percent"), percent)
        }
        let value = (tone == .done ? 100 : percent, text)
        guard accessibleValue.map({ $0 != value }) ?? true else { return }
        accessibleValue = value
        fp_accessible_update_value(widget.opaque, 0, 100, Double(value.0), text)
        fp_accessible_update_busy(widget.opaque, tone == .running ? 1 : 0)
    }
}

private func easeOut(_ t: Double) -> Double { 1 - pow(1 - min(max(t, 0), 1), 3) }

import CGtk
import FetchPlayer
import FetchUI
import Foundation
import GLibSupport

/// `FETCHPLAY_BENCH=1`: measures one playback in the real window for `bench/playback.sh`.
///
/// Counts from the moment a video is opened: the time until its first frame was painted, the
/// frames painted, the frames the sink rendered or dropped as late, and the process's CPU time.
/// At the end of the stream it prints one `fetchplay-bench key=value…` line on stdout and quits
/// the application. Off (nil) unless the variable is set.
@MainActor
final class PlaybackBench {
    private var opened: Double?
    private var firstPaint: Double?
    /// When the first frame reached the view (before it was painted).
    private var firstShown: Double?
    private var cpuAtOpen: Double = 0
    private var framesPainted = 0
    /// Every paint of the window's frame clock, with or without a new frame.
    private var paints = 0
    private var newFrame = false
    private var paintHandler: SignalConnection?
    /// How the view painted the frames (texture or cairo), from the renderer it runs on.
    private var framePath: VideoPaintable.FramePath?
    /// Frames the view replaced while they waited for a paint.
    private var replaced = 0

    static var isRequested: Bool { ProcessInfo.processInfo.environment["FETCHPLAY_BENCH"] == "1" }

    /// Follows `window`'s playback through its events; the bench lives as long as the window.
    static func attach(to window: MainWindow) {
        let bench = PlaybackBench()
        let playback = window.playback
        let toplevel = window.widget
        playback.observeEvents { [weak playback] event in
            guard let playback else { return }
            switch event {
            case .opened: bench.playRequested()
            case .frameShown: bench.frameShown(view: playback.view)
            case .ended:
                guard let player = playback.player else { return }
                playback.positions?.flush() // the process quits next
                bench.ended(player: player, window: toplevel)
            }
        }
    }

    func playRequested() {
        opened = Self.now()
        cpuAtOpen = Self.cpuSeconds()
        firstPaint = nil
        firstShown = nil
        framesPainted = 0
        paints = 0
    }

    /// A frame was handed to the video view: count it once the frame clock has painted it.
    func frameShown(view: VideoView) {
        newFrame = true
        if firstShown == nil { firstShown = Self.now() }
        framePath = view.framePath
        replaced = view.framesReplaced
        guard paintHandler == nil, let clock = gtk_widget_get_frame_clock(view.picture) else { return }
        paintHandler = clock.connect("after-paint") { [weak self] in self?.painted() }
    }

    private func painted() {
        paints += 1
        guard newFrame else { return }
        newFrame = false
        framesPainted += 1
        if firstPaint == nil { firstPaint = Self.now() }
    }

    func ended(player: Player, window: UnsafeMutablePointer<GtkWidget>) {
        let wall = opened.map { Self.now() - $0 } ?? 0
        let cpu = Self.cpuSeconds() - cpuAtOpen
        let stats = player.statistics
        let firstFrame = both(opened, firstPaint).map { ($1 - $0) * 1000 }
        let fields: [(String, String)] = [
            ("video_seconds", String(format: "%.3f", player.duration ?? 0)),
            ("wall_seconds", String(format: "%.3f", wall)),
            ("cpu_seconds", String(format: "%.3f", cpu)),
            ("first_frame_ms", firstFrame.map { String(format: "%.1f", $0) } ?? "none"),
            ("first_frame_shown_ms", both(opened, firstShown).map { String(format: "%.1f", ($1 - $0) * 1000) } ?? "none"),
            ("frames_painted", "\(framesPainted)"),
            ("window_paints", "\(paints)"),
            ("sink_rendered", "\(stats?.rendered ?? 0)"),
            ("sink_dropped_late", "\(stats?.droppedLate ?? 0)"),
            ("published", "\(stats?.published ?? 0)"),
            ("delivered", "\(stats?.delivered ?? 0)"),
            ("replaced_waiting_for_paint", "\(replaced)"),
            // So the reference player can use a window of the same size.
            ("window", "\(gtk_widget_get_width(window))x\(gtk_widget_get_height(window))"),
            // So the floor can convert to the same size.
            ("frame", player.currentFrame.map { "\($0.width)x\($0.height)" } ?? "none"),
            ("path", framePath.map { $0 == .texture ? "texture" : "cairo" } ?? "none"),
        ]
        let line = "fetchplay-bench " + fields.map { "\($0)=\($1)" }.joined(separator: " ") + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        paintHandler = nil // disconnects
        if let app = gtk_window_get_application(window.as(GtkWindow.self)) {
            g_application_quit(app.as(GApplication.self))
        }
    }

    private static func now() -> Double {
        Double(g_get_monotonic_time()) / 1_000_000
    }

    /// User + system CPU seconds of this process so far.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

private func both(_ a: Double?, _ b: Double?) -> (Double, Double)? {
    guard let a, let b else { return nil }
    return (a, b)
}

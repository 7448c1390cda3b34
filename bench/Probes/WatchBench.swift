import CGtk
import FetchCore
import FetchPlayer
import FetchUI
import Foundation
import GLibSupport

/// `FETCHPLAY_WATCH_BENCH=FRACTION` (with `--play URL`): measures watching while it downloads
/// for `bench/watch.sh`.
///
/// Counts from the moment the probe is installed (the process's start): the time to the first
/// frame shown and how much of the file was on disk then; a second after it, a seek to FRACTION
/// of the duration (as a click on the seek bar), and the time until a frame from there is shown
/// and how much was on disk then. Prints one `fetchplay-watch key=value…` line on stdout, then
/// quits the application.
@MainActor
final class WatchBench {
    private let fraction: Double
    private let started = WatchBench.now()
    private var firstFrame: (seconds: Double, bytes: Int64)?
    private var seekTarget: Double?
    private var seekAt: Double?
    private var done = false

    /// Seconds between the first frame and the seek: the video has really started playing.
    static let settle = 1.0

    private init(fraction: Double) { self.fraction = fraction }

    static var requestedFraction: Double? {
        ProcessInfo.processInfo.environment["FETCHPLAY_WATCH_BENCH"].flatMap(Double.init).flatMap { (0...1).contains($0) ? $0 : nil }
    }

    /// Follows `window`: its playback's frames and its download's bytes.
    static func attach(to window: MainWindow, fraction: Double) {
        let bench = WatchBench(fraction: fraction)
        let playback = window.playback
        playback.observeEvents { [weak window] event in
            guard let window, case .frameShown = event else { return }
            bench.frameShown(window)
        }
    }

    private func frameShown(_ window: MainWindow) {
        guard !done, let player = window.playback.player else { return }
        let now = Self.now()
        if firstFrame == nil {
            firstFrame = (now - started, bytesOnDisk(window))
            MainContext.every(milliseconds: UInt32(Self.settle * 1000)) { [self] in seek(window); return false }
            return
        }
        guard let seekTarget, let seekAt, let timestamp = player.currentFrame?.timestamp,
              timestamp >= seekTarget - 2 else { return }  // a key frame up to a GOP before
        done = true
        let fields: [(String, String)] = [
            ("first_frame_s", String(format: "%.3f", firstFrame?.seconds ?? -1)),
            ("first_frame_bytes", "\(firstFrame?.bytes ?? -1)"),
            ("seek_to_s", String(format: "%.3f", seekTarget)),
            ("seek_frame_s", String(format: "%.3f", now - seekAt)),
            ("seek_frame_at_s", String(format: "%.3f", timestamp)),
            ("seek_frame_bytes", "\(bytesOnDisk(window))"),
            ("total_bytes", "\(window.store?.progress?.total ?? -1)"),
            ("duration_s", String(format: "%.3f", player.duration ?? -1)),
        ]
        FileHandle.standardOutput.write(Data(("fetchplay-watch " + fields.map { "\($0)=\($1)" }.joined(separator: " ") + "\n").utf8))
        if let app = gtk_window_get_application(window.widget.as(GtkWindow.self)) {
            g_application_quit(app.as(GApplication.self))
        }
    }

    private func seek(_ window: MainWindow) {
        guard let player = window.playback.player, let duration = player.duration else {
            // The duration comes with the first frames; ask again shortly.
            MainContext.every(milliseconds: 100) { [self] in seek(window); return false }
            return
        }
        seekTarget = duration * fraction
        seekAt = Self.now()
        player.seek(to: duration * fraction, accurate: true)
    }

    private func bytesOnDisk(_ window: MainWindow) -> Int64 {
        window.store?.progress?.bytesDone ?? -1
    }

    private static func now() -> Double { Double(g_get_monotonic_time()) / 1_000_000 }
}

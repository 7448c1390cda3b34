import CGtk
import FetchCore
import FetchUI
import Foundation
import GLibSupport

/// A benchmark probe of main-loop responsiveness, off unless `FETCHPLAY_LATENCY_PROBE=FILE` is set
/// (`bench/ui-latency.sh` sets it).
///
/// It schedules a repeating 10 ms GLib timeout on the main context and records how late each tick
/// fires. GLib re-arms a millisecond timeout at "the loop time of its last dispatch + interval"
/// (`g_timeout_set_expiration`), so each tick notes that due time and the next tick measures
/// `now − due`: the time the main thread was busy elsewhere (drawing, handling progress, …) when
/// it should have been free. Ticks are kept apart by phase: before the download starts, while the
/// window's store is downloading, and after. Frames the window paints while downloading are
/// counted too (its frame clock's `after-paint`), to show the UI was busy drawing progress. At quit
/// (the application's `shutdown`) a summary goes to FILE as `key=value` lines, with the raw
/// lateness of each tick while downloading (`downloading_samples_us`) so runs can be pooled.
///
/// With `FETCHPLAY_LATENCY_PROBE_QUIT=1` as well, the probe quits the application once the
/// download has ended (completed or failed), so a script can run the window unattended.
@MainActor
final class MainLoopLatencyProbe {
    static let intervalMilliseconds: UInt32 = 10

    private static var running: MainLoopLatencyProbe?

    /// Starts the probe when the environment asks for it; at most once per process.
    static func startIfRequested(_ app: FetchplayApplication) {
        let environment = ProcessInfo.processInfo.environment
        guard running == nil, let path = environment["FETCHPLAY_LATENCY_PROBE"], !path.isEmpty else { return }
        let probe = MainLoopLatencyProbe(app: app, path: path,
                                         quitWhenDone: environment["FETCHPLAY_LATENCY_PROBE_QUIT"] == "1")
        running = probe
        probe.start()
    }

    private enum Phase: String { case before, downloading, after }

    private weak var app: FetchplayApplication?
    private let path: String
    private let quitWhenDone: Bool
    /// Lateness of each tick in microseconds, per phase.
    private var samples: [Phase: [Int64]] = [.before: [], .downloading: [], .after: []]
    private var phase = Phase.before
    /// When GLib will consider the next tick due (monotonic µs); nil before the first tick.
    private var due: Int64?
    private var downloadStarted: Int64?
    private var downloadEnded: Int64?
    private var endState = "none"
    private var bytes: Int64 = 0
    private var framesPainted = 0
    private var paintHandler: SignalConnection?
    private var written = false
    private var shutdown: SignalConnection?

    private init(app: FetchplayApplication, path: String, quitWhenDone: Bool) {
        self.app = app
        self.path = path
        self.quitWhenDone = quitWhenDone
        samples[.downloading]?.reserveCapacity(1 << 14)
    }

    private func start() {
        guard let app else { return }
        shutdown = app.application.as(GApplication.self).connect("shutdown") { [weak self] in self?.write() }
        MainContext.every(milliseconds: Self.intervalMilliseconds) { [weak self] in
            self?.tick() ?? false
        }
    }

    private func tick() -> Bool {
        let now = Int64(g_get_monotonic_time())
        if let due { samples[phase, default: []].append(max(0, now - due)) }
        // What GLib will use to re-arm this source once the callback returns.
        let loopTime = g_main_current_source().map { Int64(g_source_get_time($0)) } ?? now
        due = loopTime + Int64(Self.intervalMilliseconds) * 1000
        observeSession(now: now)
        return !written
    }

    private func observeSession(now: Int64) {
        guard let store = app?.window?.store else { return }
        switch (phase, store.state) {
        case (.before, .downloading):
            phase = .downloading
            downloadStarted = now
            if let widget = app?.window?.widget, let clock = gtk_widget_get_frame_clock(widget) {
                paintHandler = clock.connect("after-paint") { [weak self] in
                    if self?.phase == .downloading { self?.framesPainted += 1 }
                }
            }
        case (.downloading, .downloading):
            break
        case (.downloading, let state):
            phase = .after
            downloadEnded = now
            bytes = store.progress?.bytesDone ?? 0
            endState = Self.describe(state)
            paintHandler = nil // disconnects
            if quitWhenDone, let app {
                // Let the window show its finished state for a moment (it is part of the load).
                MainContext.every(milliseconds: 500) {
                    g_application_quit(app.application.as(GApplication.self))
                    return false
                }
            }
        default:
            break
        }
    }

    private static func describe(_ state: DownloadState) -> String {
        switch state {
        case .completed: "completed"
        case .failed: "failed"
        case .paused: "paused"
        case .idle: "idle"
        case .downloading: "downloading"
        }
    }

    /// The summary, once, at quit.
    private func write() {
        guard !written else { return }
        written = true
        var lines = ["interval_ms=\(Self.intervalMilliseconds)", "end_state=\(endState)", "bytes=\(bytes)"]
        if let start = downloadStarted {
            let end = downloadEnded ?? Int64(g_get_monotonic_time())
            lines.append("download_s=" + Self.format(Double(end - start) / 1e6))
            lines.append("frames_painted_downloading=\(framesPainted)")
        }
        for phase in [Phase.downloading, .before, .after, nil] {
            let values = phase.map { samples[$0] ?? [] } ?? samples.values.flatMap { $0 }
            lines += Self.summary(values, prefix: phase?.rawValue ?? "all")
        }
        lines.append("downloading_samples_us=" + (samples[.downloading] ?? []).map(String.init).joined(separator: ","))
        let text = lines.joined(separator: "\n") + "\n"
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("fetchplay: latency probe: cannot write \(path): \(error)\n".utf8))
        }
    }

    private static func summary(_ values: [Int64], prefix: String) -> [String] {
        let sorted = values.sorted()
        func percentile(_ p: Double) -> String {
            guard !sorted.isEmpty else { return "nan" }
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
            return format(Double(sorted[min(max(rank, 0), sorted.count - 1)]) / 1000)
        }
        let mean = sorted.isEmpty ? "nan" : format(Double(sorted.reduce(0, +)) / Double(sorted.count) / 1000)
        return [
            "\(prefix)_ticks=\(sorted.count)",
            "\(prefix)_p50_ms=\(percentile(50))",
            "\(prefix)_p99_ms=\(percentile(99))",
            "\(prefix)_max_ms=" + (sorted.last.map { format(Double($0) / 1000) } ?? "nan"),
            "\(prefix)_mean_ms=\(mean)",
            "\(prefix)_over_16ms=\(sorted.count { $0 > 16_000 })",
        ]
    }

    private static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

// FetchBench: the probes bench/ scripts turn on through the environment, kept out of the
// product module. They attach to FetchUI through its observers and do nothing unless asked:
//
//   MainLoopLatencyProbe   FETCHPLAY_LATENCY_PROBE=FILE: main-loop lateness during a download
//   PlaybackBench          FETCHPLAY_BENCH=1: first frame, frames painted and CPU of one playback
//   WatchBench             FETCHPLAY_WATCH_BENCH=FRACTION: first frame and a seek ahead while it downloads
//   LibraryBench           FETCHPLAY_LIBRARY_BENCH=FILE: first rows, loaded and settled of a big library
import FetchUI

/// Installs the probes the environment asks for.
@MainActor
public enum Benchmarks {
    public static func install(on app: FetchplayApplication) {
        app.observeStartup { MainLoopLatencyProbe.startIfRequested($0) }
        if PlaybackBench.isRequested { app.observeWindows { PlaybackBench.attach(to: $0) } }
        if let file = LibraryBench.requestedFile { app.observeWindows { LibraryBench.attach(to: $0, file: file) } }
        if let fraction = WatchBench.requestedFraction { app.observeWindows { WatchBench.attach(to: $0, fraction: fraction) } }
    }
}

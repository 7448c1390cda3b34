import Glibc

/// Bytes per second over a sliding window of a few seconds, so the number people read does not
/// jump with every packet. One per run (`FileRun`), on its worker's thread: its progress reports
/// add the samples, and each attempt (`RangeDownload`) reads the same one.
final class SpeedMeter {
    /// Seconds of history the average covers.
    let window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    init(window: Double = 3) { self.window = window }

    func add(bytes: Int64, at time: Double) {
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > window, samples.count > 2 {
            samples.removeFirst()
        }
    }

    var bytesPerSecond: Double {
        guard let first = samples.first, let last = samples.last, last.time - first.time > 0.05 else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }
}

/// Seconds on a clock that never jumps.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

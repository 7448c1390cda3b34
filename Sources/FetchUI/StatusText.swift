import CGLib
import FetchCore

/// The line under the ring: sizes, speed and time left, in words a person reads at a glance.
public enum StatusText {
    /// The status line for a state and its progress.
    public static func line(state: DownloadState, progress: DownloadProgress?) -> String {
        guard let progress else { return "Paste a link to a video, then press Start." }
        let amount = amount(progress)
        switch state {
        case .downloading:
            var parts = [amount]
            if let left = progress.secondsLeft, progress.bytesPerSecond > 0 { parts.append(timeLeft(left)) }
            let speed = progress.bytesPerSecond > 0 ? " (\(size(Int64(progress.bytesPerSecond)))/s)" : ""
            return parts.joined(separator: " — ") + speed
        case .paused:
            return "Paused — \(amount)"
        case .idle:
            return progress.bytesDone > 0 ? "\(amount) — ready to continue" : "Ready to start"
        case .failed:
            return progress.bytesDone > 0 ? "Stopped — \(amount) kept" : "Stopped"
        case .completed:
            return "\(size(progress.total ?? progress.bytesDone)) — ready to play"
        }
    }

    /// "12.3 MB of 45.6 MB", or "12.3 MB" when the total is unknown.
    public static func amount(_ progress: DownloadProgress) -> String {
        // HLS: the segments' sizes are unknown before they arrive; their count is what grows.
        if let segments = progress.segments { return "\(segments.done) of \(segments.count) segments" }
        guard let total = progress.total else { return size(progress.bytesDone) }
        return "\(size(progress.bytesDone)) of \(size(total))"
    }

    /// A byte count the GNOME way (decimal units: "1.5 MB").
    public static func size(_ bytes: Int64) -> String {
        guard let text = g_format_size(guint64(max(bytes, 0))) else { return "\(bytes) bytes" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// "5 seconds left", "3 minutes left", "1 hour 5 minutes left".
    public static func timeLeft(_ seconds: Double) -> String {
        let seconds = TimeFormat.wholeSeconds(seconds, rounding: .up)
        func plural(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s")" }
        if seconds < 60 { return plural(max(seconds, 1), "second") + " left" }
        let minutes = (seconds + 59) / 60
        if minutes < 60 { return plural(minutes, "minute") + " left" }
        let hours = minutes / 60, rest = minutes % 60
        return plural(hours, "hour") + (rest > 0 ? " " + plural(rest, "minute") : "") + " left"
    }
}

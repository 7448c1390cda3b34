import CGLib
import FetchCore
import Foundation
import GLibSupport
import Localization

/// The line under the ring: sizes, speed and time left, in words a person reads at a glance.
public enum StatusText {
    /// The status line for a state and its progress; `linkRefreshed`: its media link expired
    /// and its page gave a fresh one (said while it downloads, never as a failure).
    public static func line(state: DownloadState, progress: DownloadProgress?, linkRefreshed: Bool = false) -> String {
        guard let progress else { return tr("Paste a link to a video, then press Start.") }
        let amount = amount(progress)
        switch state {
        case .downloading:
            var parts = [amount]
            if let left = progress.secondsLeft, progress.bytesPerSecond > 0 { parts.append(timeLeft(left)) }
            let speed = progress.bytesPerSecond > 0 ? " " + String(format: tr("(%1$@/s)"), size(Int64(progress.bytesPerSecond))) : ""
            // TRANSLATORS: said while a download goes on with the fresh link its web page gave.
            if linkRefreshed { parts.insert(tr("Link refreshed"), at: 0) }
            return parts.joined(separator: " — ") + speed
        case .paused:
            return String(format: tr("Paused — %1$@"), amount)
        case .idle:
            return progress.bytesDone > 0 ? String(format: tr("%1$@ — ready to continue"), amount) : tr("Ready to start")
        case .failed(.severalVideos(let count)):
            return DownloadError.severalVideos(count).message
        case .failed:
            return progress.bytesDone > 0 ? String(format: tr("Stopped — %1$@ kept"), amount) : tr("Stopped")
        case .completed:
            return String(format: tr("%1$@ — ready to play"), size(progress.total ?? progress.bytesDone))
        }
    }

    /// "12.3 MB of 45.6 MB", or "12.3 MB" when the total is unknown.
    public static func amount(_ progress: DownloadProgress) -> String {
        // HLS: the segments' sizes are unknown before they arrive; their count is what grows.
        if let segments = progress.segments {
            return String(format: trn("%1$d of %2$d segment", "%1$d of %2$d segments", segments.count), segments.done, segments.count)
        }
        guard let total = progress.total else { return size(progress.bytesDone) }
        return String(format: tr("%1$@ of %2$@"), size(progress.bytesDone), size(total))
    }

    /// A byte count the GNOME way (decimal units: "1.5 MB").
    public static func size(_ bytes: Int64) -> String {
        String(glibTaking: g_format_size(guint64(max(bytes, 0)))) ?? "\(bytes) bytes"
    }

    /// "5 seconds left", "3 minutes left", "1 hour 5 minutes left".
    public static func timeLeft(_ seconds: Double) -> String {
        let seconds = TimeFormat.wholeSeconds(seconds, rounding: .up)
        if seconds < 60 {
            let n = max(seconds, 1)
            return String(format: trn("%1$d second left", "%1$d seconds left", n), n)
        }
        let minutes = (seconds + 59) / 60
        if minutes < 60 { return String(format: trn("%1$d minute left", "%1$d minutes left", minutes), minutes) }
        let hours = minutes / 60, rest = minutes % 60
        guard rest > 0 else { return String(format: trn("%1$d hour left", "%1$d hours left", hours), hours) }
        // Two counts, each with its own plural: the hours' phrase is put into the minutes' one.
        let hoursText = String(format: trn("%1$d hour", "%1$d hours", hours), hours)
        return String(format: trn("%1$@ %2$d minute left", "%1$@ %2$d minutes left", rest), hoursText, rest)
    }
}

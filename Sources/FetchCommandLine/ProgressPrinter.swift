import FetchCore
import Foundation
import Localization
import ThreadKit

/// Download progress on stderr: a bar redrawn in place on a terminal, a plain line every few
/// seconds when stderr is a file or a pipe.
final class ProgressPrinter: Sendable {
    private let terminal: Bool
    /// Seconds between lines when not on a terminal.
    private let lineInterval = 3.0
    private let state = Locked<(lastDraw: Double, drawn: Bool, latest: DownloadProgress?)>((0, false, nil))

    init(terminal: Bool) { self.terminal = terminal }

    func show(_ progress: DownloadProgress) {
        // Before the server answers there is nothing worth a line.
        if progress.bytesDone == 0, progress.total == nil, progress.segments == nil { return }
        let now = Date().timeIntervalSince1970
        let line: String? = state.withLock { state in
            state.latest = progress
            let interval = terminal ? 0.1 : lineInterval
            guard now - state.lastDraw >= interval else { return nil }
            state.lastDraw = now
            state.drawn = true
            return Self.describe(progress, bar: terminal)
        }
        guard let line else { return }
        write(terminal ? "\r\u{1B}[K" + line : line + "\n")
    }

    /// A line of its own between the progress lines ("fetchplay: " and `sentence`).
    func note(_ sentence: String) {
        let drawn = state.withLock { $0.drawn }
        write((terminal && drawn ? "\r\u{1B}[K" : "") + "fetchplay: " + sentence + "\n")
    }

    /// Ends the bar's line so the next output starts on a fresh one.
    func finish() {
        let (drawn, latest) = state.withLock { ($0.drawn, $0.latest) }
        if terminal, drawn { write("\r\u{1B}[K" + (latest.map { Self.describe($0, bar: true) } ?? "") + "\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func describe(_ progress: DownloadProgress, bar: Bool) -> String {
        var parts: [String] = []
        if let fraction = progress.fraction {
            let width = 24
            let filled = Int((fraction * Double(width)).rounded(.down))
            let percent = String(format: "%3d%%", Int((fraction * 100).rounded(.down)))
            parts.append(bar ? "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + percent : percent)
        }
        if let segments = progress.segments {
            // HLS: segments and seconds of video, the sizes being unknown before they arrive.
            // TRANSLATORS: HLS download progress: 3 of 15 segments.
            parts.append(String(format: tr("%1$ld of %2$ld segments"), segments.done, segments.count))
            // TRANSLATORS: seconds of video downloaded: 0:12 of 1:00.
            parts.append(String(format: tr("%1$@ of %2$@"), TimeFormat.string(segments.secondsDone),
                                TimeFormat.string(segments.secondsTotal)))
            return parts.joined(separator: "  ")
        }
        let done = ByteFormat.string(progress.bytesDone)
        // TRANSLATORS: download progress: 3.5 MB of 12 MB.
        parts.append(progress.total.map { String(format: tr("%1$@ of %2$@"), done, ByteFormat.string($0)) } ?? done)
        if progress.bytesPerSecond > 0 {
            // TRANSLATORS: a download speed: 1.5 MB/s.
            parts.append(String(format: tr("%1$@/s"), ByteFormat.string(Int64(progress.bytesPerSecond))))
        }
        // TRANSLATORS: the time a download still needs: 3 min 5 s left.
        if let left = progress.secondsLeft { parts.append(String(format: tr("%1$@ left"), TimeFormat.string(left))) }
        return parts.joined(separator: "  ")
    }
}

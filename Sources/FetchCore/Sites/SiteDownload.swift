import Foundation
import ThreadKit

/// Formats Fetchplay's engine cannot fetch (another protocol, a browser's TLS fingerprint, a
/// request body) downloaded by yt-dlp's own downloader, honestly the slower way.
///
/// It works in a folder of the cache of the download's own (`folder`, made by the caller with the
/// record that lists it as a partial), where its `.part` files stay: a pause kills it (and what
/// it started), a continue runs it again on them (yt-dlp goes on from a `.part`). Its progress is read from `--progress-template` lines into the same figure
/// as any download's; the finished file is the path it prints after its last move.
struct SiteDownload {
    let extraction: SiteExtraction
    let folder: String
    let page: String
    let formatIDs: [String]
    let context: RequestContext
    let stop: StopSignal

    /// What its progress lines start with (the rest: bytes done, total, estimated total).
    static let progressMark = "fetchplay-progress"
    /// Seconds it may take for one video: a day.
    static let timeLimit = 86_400.0

    /// Runs it to the end; `progress` hears the bytes done over all its formats and their
    /// total when known.
    ///
    /// - Returns: the finished file, inside `folder`.
    func run(progress: @escaping (Int64, Int64?) -> Void) throws(RunHalt) -> String {
        let arguments = ["-f", formatIDs.joined(separator: "+"), "--no-playlist", "--no-warnings", "--newline", "--quiet",
                         // Two lines a second at most: a day of them stays under its output limit.
                         "--progress", "--progress-delta", "0.5", "--progress-template",
                         "download:\(Self.progressMark) %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s",
                         "--paths", folder, "--output", "video.%(ext)s", "--print", "after_move:filepath"]
        var tracker = Tracker()
        var finished: String?
        let result: ChildProcess.Result
        do throws(SiteExtractionError) {
            result = try extraction.run(arguments, page: page, context: context, timeLimit: Self.timeLimit, stop: stop) { line in
                if let figures = tracker.read(line) { progress(figures.done, figures.total) }
                if line.hasPrefix(folder + "/") { finished = line }
            }
        } catch .stopped {
            throw .stopped
        } catch {
            throw .failed(.siteFailed(error.message))
        }
        guard result.status == 0 else {
            throw .failed(.siteFailed(SiteExtractionError.failed(SiteSupport.lastErrorLine(result.errorTail)).message))
        }
        // Only a file of its folder, never one a hostile answer names elsewhere.
        guard let finished, !finished.contains("/../"), FileIO.size(of: finished) != nil else {
            throw .failed(.siteFailed(SiteExtractionError.failed(nil).message))
        }
        return finished
    }

    /// One figure over the formats yt-dlp fetches one after the other: the bytes of those done
    /// before, plus the current one's.
    struct Tracker {
        private var before: Int64 = 0
        private var current: Int64 = 0
        private var currentTotal: Int64?

        mutating func read(_ line: String) -> (done: Int64, total: Int64?)? {
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == SiteDownload.progressMark, let done = Int64(fields[1]) else { return nil }
            let total = Int64(fields[2]) ?? Double(fields[3]).map { Int64($0) }
            // A count that goes back is the next format starting.
            if done < current { before += currentTotal ?? current }
            current = done
            currentTotal = total
            return (before + done, total.map { before + $0 })
        }
    }
}

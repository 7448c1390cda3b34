import CGLib
import FetchCore
import FetchPlayer
import Foundation
import Glibc
import GLibSupport
import Localization
import ThreadKit
import Synchronization

/// The command line without a window: `--download URL`, `--list`, `--list-videos PAGE` and
/// `--update-site-support`.
/// Needs no display.
///
/// The contract other tools rely on: on success the cached file's absolute path is the last
/// line of stdout and the exit code is 0; on failure one error line on stderr, nothing on
/// stdout, and an exit code from 1 to 127 (see `ExitCode`).
enum Headless {
    /// - Parameter context: what the requests carry, kept with the partial; nil: what was kept.
    ///
    /// A link that answers with a web page saves the videos the page offers (the engine reads
    /// it: `PageReader`): its one video as the page's own download, several all in page order
    /// or those `pick` numbers (from 1), each as `PAGE#video-N`, with the page's context and
    /// named after the page. Each path is printed as it is saved; the exit code is the last
    /// failure's, else 0.
    static func download(url text: String, cacheRoot: String, videos: String?, options: DownloadOptions = .init(),
                         context: RequestContext? = nil, quality: String? = nil, pick: [Int]? = nil) -> Int32 {
        let cache: Cache
        do { cache = try Cache(root: cacheRoot, videos: videos) } catch { return fail(error) }
        let page = (try? WebAddress.validate(text)) ?? text
        let links: [String]
        if let pick {
            // The page read once for how many videos it offers; its only one is the page's own.
            var pageOptions = options
            if let context { pageOptions.context = context }
            pageOptions.sites.scratch = cacheRoot + "/sites"
            let count: Int
            switch offeredVideos(on: text, options: pageOptions) {
            case .success(let found): count = found.videos.count
            case .failure(let exit): return exit.code
            }
            if let outside = pick.first(where: { !(1...count).contains($0) }) {
                // TRANSLATORS: %1$ld is the number asked for, %2$ld how many videos the page has; keep --pick.
                let sentence = String(format: tr("--pick %1$ld: this page has %2$ld videos."), outside, count)
                FileHandle.standardError.write(Data(("fetchplay: " + sentence + "\n").utf8))
                return 2
            }
            links = count == 1 ? [text] : pick.map { WebAddress.pageVideo($0, on: page) }
        } else {
            let first = download(url: text, cache: cache, options: options, context: context, quality: quality)
            guard case .failed(.severalVideos(let count)) = first.end else { return exit(first) }
            links = (1...count).map { WebAddress.pageVideo($0, on: page) }
        }
        var code = ExitCode.success
        for link in links {
            let run = download(url: link, cache: cache, options: options, context: context, quality: quality)
            let result = exit(run)
            if result != ExitCode.success { code = result }
            if case .paused = run.end { return result }
        }
        return code
    }

    /// One download to its end, its progress on stderr, and the signal that stopped it (0: none).
    private static func download(url text: String, cache: Cache, options: DownloadOptions, context: RequestContext?,
                                 quality: String?) -> (end: DownloadState, signal: Int32) {
        let printer = ProgressPrinter(terminal: isatty(STDERR_FILENO) == 1)
        let current = CurrentDownload()
        let interruption = Interruption { current.cancel() }
        let report: @Sendable (DownloadQueue.Event) -> Void = { event in
            switch event {
            case .progress(let entry): printer.show(entry.progress)
            case .linkRefreshed: printer.note(tr("The video’s link had expired; its page gave a fresh one."))
            default: break
            }
        }
        // A file, an HLS playlist or a DASH manifest, by its name, the cache (a presentation
        // begun before) or its answer: the one engine saves each in the same run.
        var options = options
        options.presentations = PresentationSaving(remux: Remuxer.presentations, quality: quality, audioTrack: AudioTrackCopier.copy) {
            // GStreamer and its plug-ins load while the segments arrive, not after them.
            Remuxer.prepareInBackground()
        }
        let end: DownloadState
        do throws(DownloadError) {
            let task = try DownloadTask(url: text, cache: cache, options: options, context: context, onEvent: report)
            current.set { task.cancel() }
            task.start()
            end = task.wait()
        } catch {
            return (.failed(error), 0)
        }
        printer.finish()
        return (end, interruption.received)
    }

    /// What a download's end prints, and its exit code: the path on stdout, or one sentence.
    private static func exit(_ run: (end: DownloadState, signal: Int32)) -> Int32 {
        switch run.end {
        case .completed(let path):
            print(path)
            return ExitCode.success
        case .failed(let error):
            return fail(error)
        default:
            let signal = run.signal
            FileHandle.standardError.write(Data(("fetchplay: " + tr("stopped; run the same command again to continue.") + "\n").utf8))
            return signal == 0 ? ExitCode.interrupted(SIGINT) : ExitCode.interrupted(signal)
        }
    }

    static func list(cacheRoot: String, videos: String?) -> Int32 {
        let cache: Cache
        do { cache = try Cache(root: cacheRoot, videos: videos) } catch { return fail(error) }
        // Leftovers of older versions (unheld locks, abandoned temporary files) go, as in the window.
        cache.tidyLeftovers()
        // The same model as the window's library: same entries, strays reported on stderr.
        for entry in Library(cache: cache).reload() { print(ListRow.line(entry)) }
        return ExitCode.success
    }

    /// `--list-videos PAGE`: one tab-separated line per video the page offers (its number from
    /// 1 in page order, its title, `stream` or `file`, its link), exit 0; a page with none is one
    /// sentence and exit 7, as a link that is no video.
    static func listVideos(page: String, options: DownloadOptions) -> Int32 {
        let finding: PageFinding
        switch offeredVideos(on: page, options: options) {
        case .success(let found): finding = found
        case .failure(let exit): return exit.code
        }
        for (index, video) in finding.videos.enumerated() {
            let fields = [String(index + 1), finding.title(of: index), video.kind.rawValue, WebAddress.redacted(video.url)]
            print(fields.map(ListRow.escaped).joined(separator: "\t"))
        }
        return ExitCode.success
    }

    /// `--update-site-support`: the managed yt-dlp installed or updated, a line per step on
    /// stdout (pip's own output never shows), then one line naming it and its version; or one
    /// sentence on stderr and exit 1.
    static func updateSiteSupport(channel: SiteSupport.Channel, proxy: ProxySetting, certificateAuthorities: String?) -> Int32 {
        let status: SiteSupport.Status
        do throws(SiteSupportError) {
            status = try SiteSupport.install(channel: channel, proxy: proxy, certificateAuthorities: certificateAuthorities) { line in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        } catch {
            FileHandle.standardError.write(Data(("fetchplay: " + error.message + "\n").utf8))
            return 1
        }
        let folder = SiteSupport.managedFolder()
        // TRANSLATORS: %1$@ is yt-dlp's version, such as 2026.11.23; %2$@ a folder's path.
        print(String(format: tr("Site support is ready: yt-dlp %1$@ in %2$@."), status.version ?? "?", folder))
        return ExitCode.success
    }

    /// An exit code whose sentence is already printed (a step that ends the program early).
    struct Exit: Error { let code: Int32 }

    /// What the page at `page` offers, at least one video; else the sentence is printed and the
    /// exit code returned (7 for a page with none, as for a link that is no video).
    private static func offeredVideos(on page: String, options: DownloadOptions) -> Result<PageFinding, Exit> {
        let finding: PageFinding
        do throws(DownloadError) {
            guard let found = try PageReader.find(at: page, options: options) else { return .failure(Exit(code: ExitCode.interrupted(SIGINT))) }
            finding = found
        } catch {
            return .failure(Exit(code: fail(error)))
        }
        guard !finding.videos.isEmpty else {
            // Site support's own sentence (or how to install it) when it was asked.
            let sentence = finding.siteFailure?.message ?? tr("No video found on this page.")
            FileHandle.standardError.write(Data(("fetchplay: " + sentence + "\n").utf8))
            return .failure(Exit(code: ExitCode.of(.notAVideo(.webPage))))
        }
        if finding.entriesLeftOut > 0 {
            // TRANSLATORS: %1$ld is how many entries were listed (1,000), %2$ld how many were left out.
            let sentence = String(format: tr("This playlist is long: its first %1$ld entries are listed, %2$ld more are left out."),
                                  finding.videos.count, finding.entriesLeftOut)
            FileHandle.standardError.write(Data(("fetchplay: " + sentence + "\n").utf8))
        }
        return .success(finding)
    }

    private static func fail(_ error: DownloadError) -> Int32 {
        FileHandle.standardError.write(Data("fetchplay: \(error.message)\n".utf8))
        return ExitCode.of(error)
    }
}

/// Exit codes of `--download`, so scripts can tell a bad link from a bad network.
enum ExitCode {
    static let success: Int32 = 0

    static func of(_ error: DownloadError) -> Int32 {
        switch error {
        case .invalidURL, .localFile, .unsupportedScheme: 2
        case .httpStatus: 3
        case .hostNotFound, .connectionRefused, .proxyFailed, .stalled, .connectionLost, .tooManyRedirects, .tls: 4
        case .diskFull, .tooLarge, .fileSystem: 5
        case .busy: 6
        case .notAVideo, .severalVideos, .notOnPage, .refusedStream, .refusedManifest, .needsSiteSupport, .siteFailed: 7
        case .badResponse, .remuxFailed, .audioNotSaved, .other: 1
        }
    }

    static func interrupted(_ signal: Int32) -> Int32 { 128 + signal }
}

/// What a signal stops: the download, once it is made.
final class CurrentDownload: Sendable {
    private let stop = Locked<(action: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

    /// Makes `action` what a signal runs; at once when a signal came before.
    func set(_ action: @escaping @Sendable () -> Void) {
        if stop.withLock({ $0.action = action; return $0.cancelled }) { action() }
    }

    func cancel() { stop.withLock { $0.cancelled = true; return $0.action }?() }
}

/// SIGINT and SIGTERM stop the download cleanly instead of killing the process mid-write.
///
/// GLib's signal sources wake a context of its own, which a thread turns while the main thread
/// waits on the download.
final class Interruption: Sendable {
    /// What the thread and the handler share; not `self`, which its deinit stops.
    private final class Flags: Sendable {
        let last = Atomic<Int32>(0)
        let stopped = Atomic<Bool>(false)
    }

    private let flags = Flags()
    private let context = UInt(bitPattern: g_main_context_new())
    private let thread: Worker

    /// Runs `action` on a thread of its own when either signal arrives.
    init(_ action: @escaping @Sendable () -> Void) {
        let flags = flags, context = context
        UnixSignals.watch([SIGINT, SIGTERM], on: OpaquePointer(bitPattern: context)) { number in
            flags.last.store(number, ordering: .relaxed)
            action()
        }
        thread = Worker.run(name: "fetchplay signals", stage: .downloads, in: nil) {
            while !flags.stopped.load(ordering: .acquiring) { g_main_context_iteration(OpaquePointer(bitPattern: context), 1) }
        }
    }

    deinit {
        flags.stopped.store(true, ordering: .releasing)
        // Wakes an iteration that sleeps already; one about to start sees the flag first.
        g_main_context_wakeup(OpaquePointer(bitPattern: context))
        thread.join()
        g_main_context_unref(OpaquePointer(bitPattern: context))
    }

    /// The last signal received, or 0.
    var received: Int32 { flags.last.load(ordering: .relaxed) }
}

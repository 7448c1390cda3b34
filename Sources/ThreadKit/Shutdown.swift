#if canImport(Glibc)
import Glibc
#endif

/// The workers of a process, by stage, and the one order quitting ends them in.
///
/// Every `Worker` is made in a shutdown (the process's, `Shutdown.process`, unless its maker says
/// otherwise). While its owner holds it, it is the owner's; once the owner lets it go, its
/// threads finish what they must, and the shutdown's reaper (a worker of its own) joins them as
/// soon as the last has ended, or `finish` does at quit. So no thread outlives the process's
/// `exit` unjoined, and no owner on the main thread waits for one.
///
/// `finish` ends the work in this order, each step joined before the next begins:
///
/// 1. **downloads** (`.downloads`): every download's worker and its run's parts (transfers,
///    segment pools, remux feeds);
/// 2. **checkpoints** (`.checkpoints`): the partials' syncs and records and the download
///    store's disk reads the downloads queued as they ended, so every partial is durable;
/// 3. **playback** (`.playback`): every player's state worker, its pipelines gone to NULL; a
///    pipeline may read a partial, so after the downloads;
/// 4. **media** (`.media`): thumbnails, the decoder preload, the sound-device probe, the remux
///    warm-up; nothing later needs them;
/// 5. **records** (`.records`): the library's and the playback positions' disk workers, after
///    every step that can still ask for a record write (a position saved as playback stops);
/// 6. **settings** (`.settings`): Preferences' writes, and any the steps before asked for.
///
/// Then the process may exit: no thread is inside GLib, GStreamer or a write.
public final class Shutdown: @unchecked Sendable {
    /// When a worker is joined, in the order of `finish`.
    public enum Stage: Int, CaseIterable, Comparable, Sendable {
        /// Downloads: a download's run, the variants of a link being read.
        case downloads
        /// What the downloads leave to finish: a partial's checkpoints, the store's disk reads.
        case checkpoints
        /// Players' state changes (pipelines going down).
        case playback
        /// Thumbnails, start-up warm-ups, probes.
        case media
        /// Record writes (the library, playback positions).
        case records
        /// Preferences' writes, last: the steps before may change a setting.
        case settings

        public static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The process's: every worker unless its maker chose another.
    public static let process = Shutdown()

    /// Workers not joined yet.
    private let workers = Locked<[WorkerThreads]>([])

    /// The one reaper of the process (made when first needed, joined by `finish`), shared by
    /// every shutdown: a static, so that no reaper is ever freed, and so joined, on a thread it
    /// is about to join (a shutdown let go while one of its workers ends).
    private static let reaper = Locked<Worker?>(nil)

    public init() {}

    /// Takes `threads` in; once they have all ended, the reaper joins them.
    func adopt(_ threads: WorkerThreads) {
        workers.withLock { $0.append(threads) }
        let watching = threads.whenEnded { [workers] in Self.reap(threads, from: workers) }
        if !watching { Self.reap(threads, from: workers) }
    }

    /// Joins `threads`, whose last thread is ending, on the reaper: never on that thread itself.
    /// The jobs hold the list, not the shutdown.
    private static func reap(_ threads: WorkerThreads, from workers: Locked<[WorkerThreads]>) {
        let reaper = Self.reaper.withLock { reaper -> Worker in
            if let reaper { return reaper }
            let made = Worker(name: "fetchplay reaper", stage: .records, in: nil)
            reaper = made
            return made
        }
        // Refused only while `finish` joins the reaper; the next `finish` joins `threads` then.
        reaper.submit {
            _ = threads.join(until: nil)
            workers.withLock { $0.removeAll { $0 === threads } }
        }
    }

    /// Workers whose threads have not all been joined (tests).
    public var unjoinedWorkers: Int { workers.withLock { $0.count } }

    /// Threads of this shutdown's workers that have not ended, in `stage` or in all.
    public func runningThreads(in stage: Stage? = nil) -> Int {
        workers.withLock { workers in
            workers.filter { stage == nil || $0.stage == stage }.reduce(0) { $0 + $1.running }
        }
    }

    /// Stops every worker of `stage` (held by its owner or not) and joins it; false when
    /// `timeout` seconds passed first (those not joined stay, for a later call).
    @discardableResult
    public func join(_ stage: Stage, timeout: Double? = nil) -> Bool {
        join(stage, until: timeout.map(Deadline.init(seconds:)))
    }

    private func join(_ stage: Stage, until deadline: Deadline?) -> Bool {
        let joining = workers.withLock { $0.filter { $0.stage == stage } }
        for worker in joining { worker.stop() }
        var joined = true
        for worker in joining {
            guard worker.join(until: deadline) else {
                joined = false
                continue
            }
            workers.withLock { $0.removeAll { $0 === worker } }
        }
        return joined
    }

    /// The ordered shutdown (see the type's summary): waits up to `timeout` seconds in all;
    /// false when some work was still running then. The shutdown can be used again afterwards
    /// (tests open and close many windows in one process).
    @discardableResult
    public func finish(timeout: Double = 10) -> Bool {
        let deadline = Deadline(seconds: timeout)
        var finished = true
        for stage in Stage.allCases {
            finished = join(stage, until: deadline) && finished
        }
        // Last, the reaper (its jobs are joins of workers that had ended); made again if needed.
        if let reaper = Self.reaper.withLock({ reaper in defer { reaper = nil }; return reaper }) {
            finished = reaper.join(timeout: deadline.secondsLeft) && finished
        }
        return finished
    }

    /// The last thing before a process exits: `finish`, and a warning when something was
    /// still running after 10 s (a stuck pipeline); the exit goes on.
    public func finishBeforeExit() {
        if !finish(timeout: 10) {
            let line = "fetchplay: warning: quitting with background work still running\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
    }
}

extension Deadline {
    /// Seconds until the deadline, zero once it passed.
    var secondsLeft: Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let left = Double(time.tv_sec - now.tv_sec) + Double(time.tv_nsec - now.tv_nsec) / 1e9
        return max(0, left)
    }
}

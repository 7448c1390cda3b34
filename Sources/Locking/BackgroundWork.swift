#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Short jobs on libdispatch queues that must end before the process does: checkpoints (an
/// `fdatasync`, then the record), the download store's disk reads, Preferences' writes, a
/// file's first look. Each job counts from when it is asked for until it ends; `Shutdown.finish`
/// waits for all of them after the downloads' workers (whose checkpoints they are) and again
/// last, so none is still inside GLib or a write when `exit` runs. Threads are not counted
/// here: every one belongs to a `Worker`.
///
/// A `.skippable` job only serves what people see (a thumbnail): one that has not started when
/// the shutdown begins returns at once instead of running. Every other job runs to its end.
public enum BackgroundWork {
    public enum Kind: Sendable {
        /// Must run (a record write, a pipeline going down).
        case needed
        /// Skipped when it starts after the shutdown began.
        case skippable
    }

    /// One job being counted: `end()` it exactly once.
    public struct Job: Sendable {
        fileprivate let tracker: Tracker

        public func end() { tracker.leave() }
    }

    private static let tracker = Tracker()

    /// Counts a job that runs on a thread of the caller's (a download's worker); nil when it is
    /// skippable and the shutdown has begun.
    public static func begin(_ kind: Kind = .needed) -> Job? {
        tracker.enter(kind) ? Job(tracker: tracker) : nil
    }

    /// Runs `body` on `queue`, counted from now until it returns.
    public static func async(on queue: DispatchQueue, _ kind: Kind = .needed, _ body: @escaping @Sendable () -> Void) {
        guard tracker.enter(kind) else { return }
        queue.async {
            defer { tracker.leave() }
            if kind == .skippable, tracker.isClosing { return }
            body()
        }
    }

    /// The shutdown: waits up to `timeout` seconds for every counted job (skippable ones not yet
    /// started return at once); false when some were still running then. Once it returns,
    /// new work is counted as before (tests open and close many windows in one process).
    @discardableResult
    public static func finish(timeout: Double) -> Bool { tracker.drain(timeout: timeout) }

    /// The last thing before a process exits: the whole ordered shutdown, which waits for these
    /// jobs first and last (kept for callers from before `Shutdown`).
    public static func finishBeforeExit() { Shutdown.process.finishBeforeExit() }

    /// Jobs counted now.
    public static var running: Int { tracker.count }

    /// The shutdown is waiting for the jobs.
    public static var isClosing: Bool { tracker.isClosing }
}

/// A count of jobs under a pthread mutex, with a condition to wait for it to reach zero.
private final class Tracker: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let drained = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = 0
    private var closing = false

    init() {
        mutex.initialize(to: pthread_mutex_t())
        drained.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0 && pthread_cond_init(drained, nil) == 0)
    }

    // Lives as long as the process (a static): never destroyed.

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    var isClosing: Bool { locked { closing } }
    var count: Int { locked { jobs } }

    func enter(_ kind: BackgroundWork.Kind) -> Bool {
        locked {
            if kind == .skippable, closing { return false }
            jobs += 1
            return true
        }
    }

    func leave() {
        locked {
            jobs -= 1
            precondition(jobs >= 0, "a background job ended twice")
            if jobs == 0 { pthread_cond_broadcast(drained) }
        }
    }

    func drain(timeout: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(timeout * 1e9)
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return locked {
            closing = true
            defer { closing = false }
            while jobs > 0 {
                if pthread_cond_timedwait(drained, mutex, &deadline) == ETIMEDOUT { return jobs == 0 }
            }
            return true
        }
    }
}

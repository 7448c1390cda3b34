#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own with one queue of jobs, owned by whoever made them: asked to stop, then
/// joined. Not a detached thread: every thread a `Worker` starts is joined by `join`, by its
/// deinit, or by the `Shutdown` it was made in.
///
/// Jobs run in the order submitted (several at once with `threads` > 1). `stop()` takes no more
/// jobs and drops the waiting `.skippable` ones; the waiting `.needed` ones still run, then the
/// threads end. A job that waits on something long (a GStreamer bus) hears the stop through
/// `whenStopping` and gives up.
///
/// When the owner goes, the deinit stops the worker. Made in a `Shutdown` (the process's by
/// default), its threads are left there and joined when they end or when the process quits, so
/// an owner on the main thread never waits for them; made in none, the deinit joins them.
public final class Worker: @unchecked Sendable {
    public enum Kind: Sendable {
        /// Runs even when the worker is asked to stop first (a record write, a pipeline going down).
        case needed
        /// Dropped when the worker stops before it starts (a thumbnail nobody will see).
        case skippable
    }

    public let name: String
    /// When the process's shutdown joins it.
    public let stage: Shutdown.Stage
    let threads: WorkerThreads
    private let shutdown: Shutdown?

    /// Starts `threads` threads named `name` (the first 15 bytes show in `top -H` and gdb).
    public init(name: String, threads count: Int = 1, stage: Shutdown.Stage, in shutdown: Shutdown? = .process) {
        precondition(count > 0, "a worker needs a thread")
        self.name = name
        self.stage = stage
        self.shutdown = shutdown
        threads = WorkerThreads(name: name, count: count, stage: stage)
        shutdown?.adopt(threads)
    }

    /// A worker that runs `body` once and then ends (a warm-up at start-up): hold it and join it.
    public static func run(name: String, stage: Shutdown.Stage, in shutdown: Shutdown? = .process,
                           _ kind: Kind = .needed, _ body: @escaping @Sendable () -> Void) -> Worker {
        let worker = Worker(name: name, stage: stage, in: shutdown)
        worker.submit(kind, body)
        worker.threads.close()
        return worker
    }

    deinit {
        stop()
        if shutdown == nil { _ = threads.join(until: nil) }
    }

    /// Queues `job`; false (and `job` dropped) once the worker was asked to stop.
    @discardableResult
    public func submit(_ kind: Kind = .needed, _ job: @escaping @Sendable () -> Void) -> Bool {
        threads.submit(kind, job)
    }

    /// Queues `job`, or runs it on the caller's thread when the worker has stopped already: its
    /// owner outlived a shutdown (a test's next window), or asks for a write while quitting.
    public func submitOrRunHere(_ job: @escaping @Sendable () -> Void) {
        if !submit(.needed, job) { job() }
    }

    /// Takes no more jobs; drops the waiting skippable ones, runs the `whenStopping` handlers.
    /// Returns at once: the threads end after the needed jobs still waiting.
    public func stop() { threads.stop() }

    /// Whether `stop()` was called (by the owner or by the shutdown).
    public var isStopping: Bool { threads.isStopping }

    /// Calls `handler` (on the thread that stops the worker, or at once when it is stopping
    /// already) to cut short a job that waits: wake it, cancel its pipeline.
    public func whenStopping(_ handler: @escaping @Sendable () -> Void) { threads.whenStopping(handler) }

    /// Stops the worker and waits for its threads to end; false when `timeout` seconds passed
    /// first. Never call it from one of the worker's own jobs.
    @discardableResult
    public func join(timeout: Double? = nil) -> Bool {
        stop()
        return threads.join(until: timeout.map(Deadline.init(seconds:)))
    }

    /// Waits until every job submitted before the call has run (or been dropped).
    public func flush() { threads.flush() }

    /// Threads started and not yet ended.
    public var runningThreads: Int { threads.running }
}

/// An absolute time on `CLOCK_REALTIME`, which `pthread_cond_timedwait` and
/// `pthread_timedjoin_np` take.
struct Deadline {
    var time: timespec

    init(seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(max(0, seconds) * 1e9)
        now.tv_sec += nanoseconds / 1_000_000_000
        now.tv_nsec = nanoseconds % 1_000_000_000
        time = now
    }
}

/// The threads of one worker and their queue, under one `Locked`. Shared by the `Worker` handle,
/// its threads and its `Shutdown`, so the handle can go while they still run.
final class WorkerThreads: Sendable {
    let name: String
    let stage: Shutdown.Stage

    private struct State {
        var queue: [(kind: Worker.Kind, job: @Sendable () -> Void)] = []
        var stopping = false
        /// Takes no more jobs but still runs every one queued (`Worker.run`); `stop()` may follow.
        var closed = false
        var stopHandlers: [@Sendable () -> Void] = []
        /// Jobs taken from the queue (run or dropped), against `submitted`, for `flush`.
        var submitted = 0
        var finished = 0
        var running = 0
        var pthreads: [pthread_t] = []
        /// Called once, on the last thread as it ends (set by the `Shutdown` that adopts the worker).
        var onEnded: (@Sendable () -> Void)?
        /// True while a `join` runs, so that a second one waits for the first.
        var joining = false
    }

    private let state = Locked(State())

    init(name: String, count: Int, stage: Shutdown.Stage) {
        self.name = name
        self.stage = stage
        for _ in 0..<count { start() }
    }

    var running: Int { state.withLock { $0.running } }

    private func start() {
        var thread = pthread_t()
        state.withLock { $0.running += 1 }
        let box = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { box in
            let threads = Unmanaged<WorkerThreads>.fromOpaque(box!).takeRetainedValue()
            threads.loop()
            return nil
        }, box)
        precondition(status == 0, "pthread_create: \(status)")
        state.withLock { $0.pthreads.append(thread) }
    }

    /// Names the calling thread (for `top -H` and gdb); Linux keeps the first 15 bytes.
    /// `pthread_setname_np` is a GNU extension the Glibc module leaves out, so through /proc.
    private func nameThisThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    private func loop() {
        nameThisThread()
        while true {
            // The next job, or the end once stopping (or closed) with nothing left.
            let job = state.wait(until: { !$0.queue.isEmpty || $0.stopping || $0.closed }) { state in
                state.queue.isEmpty ? nil : state.queue.removeFirst().job
            }
            if let job {
                job()
                state.withLockAndNotify { $0.finished += 1 }
                continue
            }
            let ended = state.withLockAndNotify { state -> (@Sendable () -> Void)? in
                state.running -= 1
                guard state.running == 0 else { return nil }
                defer { state.onEnded = nil }
                return state.onEnded
            }
            // The last thread tells whoever joins ended workers (its `Shutdown`).
            ended?()
            return
        }
    }

    /// Sets what the last thread calls as it ends; false when every thread has ended already
    /// (the caller joins them then).
    func whenEnded(_ body: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.running > 0 else { return false }
            state.onEnded = body
            return true
        }
    }

    func submit(_ kind: Worker.Kind, _ job: @escaping @Sendable () -> Void) -> Bool {
        state.withLockAndNotify { state in
            guard !state.stopping, !state.closed else { return false }
            state.queue.append((kind, job))
            state.submitted += 1
            return true
        }
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func stop() {
        let handlers = state.withLockAndNotify { state -> [@Sendable () -> Void] in
            guard !state.stopping else { return [] }
            state.stopping = true
            let dropped = state.queue.count
            state.queue.removeAll { $0.kind == .skippable }
            state.finished += dropped - state.queue.count
            defer { state.stopHandlers = [] }
            return state.stopHandlers
        }
        for handler in handlers { handler() }
    }

    /// No more jobs; the threads end once the queue is empty.
    func close() { state.withLockAndNotify { $0.closed = true } }

    func whenStopping(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if !state.stopping { state.stopHandlers.append(handler) }
            return state.stopping
        }
        if now { handler() }
    }

    func flush() {
        let target = state.withLock { $0.submitted }
        state.wait { $0.finished >= target }
    }

    /// Waits for every thread to end (`stop()` first, or this waits for ever); false when
    /// `deadline` passed first (the threads are then joined by a later call).
    ///
    /// The wait is on `running` reaching zero, which a thread says under the lock as the last
    /// thing before it returns; `pthread_join` then only collects it (`pthread_timedjoin_np` is
    /// a GNU extension the Glibc module leaves out).
    func join(until deadline: Deadline?) -> Bool {
        let threads = state.wait(until: { !$0.joining }) { state in
            state.joining = true
            return state.pthreads
        }
        defer { state.withLockAndNotify { $0.joining = false } }
        precondition(!threads.contains { pthread_equal($0, pthread_self()) != 0 },
                     "worker \(name) joined from one of its own jobs")
        guard state.wait(until: { $0.running == 0 }, deadline: deadline, then: { $0.running == 0 }) else { return false }
        for thread in threads { precondition(pthread_join(thread, nil) == 0) }
        state.withLock { state in
            state.pthreads.removeAll { thread in threads.contains { pthread_equal($0, thread) != 0 } }
        }
        return true
    }
}

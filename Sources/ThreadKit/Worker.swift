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

/// The threads of one worker and their queue, under one pthread mutex. Shared by the `Worker`
/// handle, its threads and its `Shutdown`, so the handle can go while they still run.
final class WorkerThreads: @unchecked Sendable {
    let name: String
    let stage: Shutdown.Stage
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Held while joining, so that a second `join` waits for the first.
    private let joining = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var queue: [(kind: Worker.Kind, job: @Sendable () -> Void)] = []
    private var stopping = false
    /// Takes no more jobs but still runs every one queued (`Worker.run`); `stop()` may follow.
    private var closed = false
    private var stopHandlers: [@Sendable () -> Void] = []
    /// Jobs taken from the queue (run or dropped), against `submitted`, for `flush`.
    private var submitted = 0
    private var finished = 0
    private(set) var running = 0
    private var pthreads: [pthread_t] = []

    init(name: String, count: Int, stage: Shutdown.Stage) {
        self.name = name
        self.stage = stage
        for lock in [mutex, joining] {
            lock.initialize(to: pthread_mutex_t())
            precondition(pthread_mutex_init(lock, nil) == 0)
        }
        changed.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(changed, nil) == 0)
        for _ in 0..<count { start() }
    }

    deinit {
        // Every thread holds a reference until it returns: none runs now.
        for lock in [mutex, joining] {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }
        pthread_cond_destroy(changed)
        changed.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func start() {
        var thread = pthread_t()
        locked { running += 1 }
        let box = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { box in
            let threads = Unmanaged<WorkerThreads>.fromOpaque(box!).takeRetainedValue()
            threads.loop()
            return nil
        }, box)
        precondition(status == 0, "pthread_create: \(status)")
        locked { pthreads.append(thread) }
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
            switch next() {
            case .job(let job):
                job()
                locked {
                    finished += 1
                    pthread_cond_broadcast(changed)
                }
            case .end(let ended):
                // The last thread tells whoever joins ended workers (its `Shutdown`).
                ended?()
                return
            }
        }
    }

    private enum Next {
        case job(@Sendable () -> Void)
        /// The thread ends; the last one carries `onEnded`.
        case end((@Sendable () -> Void)?)
    }

    /// The next job, or the end once stopping (or closed) with nothing left.
    private func next() -> Next {
        locked {
            while queue.isEmpty, !stopping, !closed { pthread_cond_wait(changed, mutex) }
            guard queue.isEmpty else { return .job(queue.removeFirst().job) }
            running -= 1
            pthread_cond_broadcast(changed)
            guard running == 0 else { return .end(nil) }
            defer { onEnded = nil }
            return .end(onEnded)
        }
    }

    /// Called once, on the last thread as it ends (set by the `Shutdown` that adopts the worker).
    private var onEnded: (@Sendable () -> Void)?

    /// Sets `onEnded`; false when every thread has ended already (the caller joins them then).
    func whenEnded(_ body: @escaping @Sendable () -> Void) -> Bool {
        locked {
            guard running > 0 else { return false }
            onEnded = body
            return true
        }
    }

    func submit(_ kind: Worker.Kind, _ job: @escaping @Sendable () -> Void) -> Bool {
        locked {
            guard !stopping, !closed else { return false }
            queue.append((kind, job))
            submitted += 1
            pthread_cond_signal(changed)
            return true
        }
    }

    var isStopping: Bool { locked { stopping } }


    func stop() {
        let handlers = locked { () -> [@Sendable () -> Void] in
            guard !stopping else { return [] }
            stopping = true
            let dropped = queue.count
            queue.removeAll { $0.kind == .skippable }
            finished += dropped - queue.count
            pthread_cond_broadcast(changed)
            defer { stopHandlers = [] }
            return stopHandlers
        }
        for handler in handlers { handler() }
    }

    /// No more jobs; the threads end once the queue is empty.
    func close() {
        locked {
            closed = true
            pthread_cond_broadcast(changed)
        }
    }

    func whenStopping(_ handler: @escaping @Sendable () -> Void) {
        let now = locked {
            if !stopping { stopHandlers.append(handler) }
            return stopping
        }
        if now { handler() }
    }

    func flush() {
        locked {
            let target = submitted
            while finished < target { pthread_cond_wait(changed, mutex) }
        }
    }

    /// Waits for every thread to end (`stop()` first, or this waits for ever); false when
    /// `deadline` passed first (the threads are then joined by a later call).
    ///
    /// The wait is on `running` reaching zero, which a thread says under the lock as the last
    /// thing before it returns; `pthread_join` then only collects it (`pthread_timedjoin_np` is
    /// a GNU extension the Glibc module leaves out).
    func join(until deadline: Deadline?) -> Bool {
        pthread_mutex_lock(joining)
        defer { pthread_mutex_unlock(joining) }
        let threads = locked { pthreads }
        precondition(!threads.contains { pthread_equal($0, pthread_self()) != 0 },
                     "worker \(name) joined from one of its own jobs")
        let ended = locked { () -> Bool in
            while running > 0 {
                if var deadline {
                    if pthread_cond_timedwait(changed, mutex, &deadline.time) == ETIMEDOUT { return running == 0 }
                } else {
                    pthread_cond_wait(changed, mutex)
                }
            }
            return true
        }
        guard ended else { return false }
        for thread in threads { precondition(pthread_join(thread, nil) == 0) }
        locked { pthreads.removeAll { thread in threads.contains { pthread_equal($0, thread) != 0 } } }
        return true
    }
}

// ThreadKit: the one kit for threads. One lock type for every module, built on a pthread mutex;
// the threads of the process and their end; stopping and observing.
//
//   Locked<Value>    a value under a pthread mutex, and the wait for it to change (the
//                    process's only condition variable; the workers wait through it too)
//   Worker           threads of its own with a queue of jobs, owned, stopped and joined
//   Shutdown         the workers by stage, and the one order quitting joins them in
//   StopSignal       a request to stop, read without a lock, waited on between retries
//   Observers        every observer of a value heard, on the main thread
//   Weak<Object>     a reference that lets its object go, for callbacks that may outlive it
//
// Swift's `Synchronization.Mutex` waits on a futex directly, which ThreadSanitizer cannot see,
// so a TSan run reports races that are not there. A pthread mutex is what TSan (and valgrind's
// helgrind) understand, as swift-nio's `NIOLock` found; the cost is one allocation per lock.
#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a pthread mutex; `withLock` is the only way to it. A thread can also wait
/// for the value to become what it needs (`wait(until:)`), woken by `withLockAndNotify`: the one
/// condition variable of the process's waits, instead of one hand-rolled beside each value.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(changed, nil) == 0, "pthread_cond_init")
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; never call `withLock` of the same lock inside.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// `withLock`, then every thread in `wait(until:)` checks its condition again.
    public func withLockAndNotify<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Waits, the lock given up meanwhile, until `condition` holds for the value (checked now and
    /// after every `withLockAndNotify`) or `timeout` seconds passed (nil: no limit); then runs
    /// `body` with the value as it is, holding the lock, and returns its answer. Never on a
    /// thread that must not block (the main thread).
    public func wait<Result>(until condition: (Value) -> Bool, timeout: Double? = nil,
                             then body: (inout Value) -> Result) -> Result {
        wait(until: condition, deadline: timeout.map(Deadline.init(seconds:)), then: body)
    }

    /// The wait, until an absolute `deadline` (a worker's join shares one with the rest of its stage).
    func wait<Result>(until condition: (Value) -> Bool, deadline: Deadline?, then body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !condition(value) {
            if var deadline {
                if pthread_cond_timedwait(changed, mutex, &deadline.time) == ETIMEDOUT { break }
            } else {
                pthread_cond_wait(changed, mutex)
            }
        }
        return body(&value)
    }

    /// Waits as `wait(until:then:)` does; true when `condition` held, false after `timeout`.
    @discardableResult
    public func wait(until condition: (Value) -> Bool, timeout: Double? = nil) -> Bool {
        wait(until: condition, timeout: timeout) { condition($0) }
    }
}

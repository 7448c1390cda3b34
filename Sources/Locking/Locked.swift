// Locking: one lock type for every module, built on a pthread mutex; the threads of the process
// and their end.
//
//   Locked<Value>    a value under a pthread mutex
//   Worker           threads of its own with a queue of jobs, owned, stopped and joined
//   Shutdown         the workers by stage, and the one order quitting joins them in
//
// Swift's `Synchronization.Mutex` waits on a futex directly, which ThreadSanitizer cannot see,
// so a TSan run reports races that are not there. A pthread mutex is what TSan (and valgrind's
// helgrind) understand, as swift-nio's `NIOLock` found; the cost is one allocation per lock.
#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a pthread mutex; `withLock` is the only way to it.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
    }

    deinit {
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
}

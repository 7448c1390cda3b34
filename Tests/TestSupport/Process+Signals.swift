import Foundation
import Glibc
import ThreadKit

extension Process {
    /// Starts the process with no signal blocked, whatever the calling thread blocks.
    ///
    /// A child inherits the signal mask of the thread that starts it, and the threads Swift's
    /// tests run on (libdispatch's workers) block nearly every signal: a child started there
    /// never sees SIGTERM, so `terminate()`, `dbus-run-session` ending its bus or a parent-death
    /// signal would leave it running after the tests. The calling thread's mask is cleared only
    /// for the moment of the start.
    public func runWithSignalsUnblocked() throws {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }

    /// Starts the process from a thread that lives as long as the test process, with no signal
    /// blocked: a parent-death signal (`setpriv --pdeathsig`) follows the *thread* that started
    /// the child, and the threads tests run on come and go, which would end the child early.
    public func runFromLifelongThread() throws {
        try LifelongThread.shared.perform { try self.runWithSignalsUnblocked() }
    }
}

/// One thread that never ends, for starting children that must end with the process.
final class LifelongThread: Sendable {
    static let shared = LifelongThread()

    /// Made in no shutdown and never let go: its thread lasts as long as the test process.
    private let worker = Worker(name: "fetchplay-tests-lifelong", stage: .settings, in: nil)

    /// Runs `body` on the thread and waits for it.
    func perform(_ body: @escaping @Sendable () throws -> Void) throws {
        let failure = Locked<(done: Bool, error: (any Error)?)>((false, nil))
        worker.submit {
            do { try body() } catch { failure.withLock { $0.error = error } }
            failure.withLockAndNotify { $0.done = true }
        }
        if let error = failure.wait(until: \.done, then: { $0.error }) { throw error }
    }
}

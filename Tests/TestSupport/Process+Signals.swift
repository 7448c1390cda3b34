import Foundation
import Glibc

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
final class LifelongThread: @unchecked Sendable {
    static let shared = LifelongThread()

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let thread = Thread { [unowned self] in self.serve() }
        thread.name = "fetchplay-tests-lifelong"
        thread.start()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on the thread and waits for it.
    func perform(_ body: @escaping () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        var failure: (any Error)?
        condition.lock()
        jobs.append {
            do { try body() } catch { failure = error }
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        if let failure { throw failure }
    }
}

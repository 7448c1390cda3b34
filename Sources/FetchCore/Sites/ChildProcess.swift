import Foundation
import Glibc
import ThreadKit

/// A program run as a child process to its end, within a time limit and with bounded output:
/// what site support runs (`python3 -m venv`, pip, yt-dlp), never imported, never trusted.
///
/// The child gets no standard input, the default action for SIGINT, SIGTERM and SIGPIPE (the
/// command line ignores the first two while it downloads) and a process group of its own, so a
/// time limit, too much output or a stop ends it and whatever it started, together.
struct ChildProcess {
    /// How a run ended.
    enum Ending: Equatable {
        /// It exited by itself (`status`), or was killed by a signal of someone else's.
        case exited
        /// It ran past its time limit and was killed.
        case timedOut
        /// Its standard output passed the limit and it was killed.
        case tooMuchOutput
        /// The caller's stop signal was raised and it was killed.
        case stopped
    }

    struct Result {
        var ending: Ending
        /// The exit status; -N when signal N ended it.
        var status: Int32
        /// Its standard output, at most `outputLimit` bytes.
        var output: [UInt8]
        /// The last bytes of its standard error (`errorTail`), as text.
        var errorTail: String
    }

    /// Bytes of standard error kept (its end: where Python's last error line is).
    static let errorTail = 64 << 10
    /// Characters of one line handed to `onLine` at most.
    static let lineLimit = 1000

    let program: String
    let arguments: [String]
    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Seconds it may run.
    var timeLimit: Double
    /// Bytes of standard output it may write.
    var outputLimit: Int
    var stop: StopSignal?

    /// Runs it to its end; `onLine` hears each line of its standard output and error as it comes.
    ///
    /// - Throws: the system's reason when it cannot be started at all (`strerror`).
    func run(onLine: ((String) -> Void)? = nil) throws(ChildProcessError) -> Result {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw ChildProcessError(errno) }
        guard pipe(&errPipe) == 0 else {
            let failure = errno
            outPipe.forEach { close($0) }
            throw ChildProcessError(failure)
        }
        // The parent's ends never reach a child (this one or another thread's).
        for descriptor in outPipe + errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let (child, spawned) = Spawn.start(program, arguments: arguments, environment: environment) { actions, attributes in
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        }
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw ChildProcessError(spawned)
        }
        var reader = Reader(outputLimit: outputLimit, onLine: onLine)
        let ending = reader.drain(out: outPipe[0], err: errPipe[0], child: child, timeLimit: timeLimit, stop: stop)
        close(outPipe[0])
        close(errPipe[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1, errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
        return Result(ending: ending, status: code, output: reader.output,
                      errorTail: String(decoding: reader.error, as: UTF8.self))
    }

    /// Reads both pipes until they close, the time runs out, the output is too long or a stop.
    private struct Reader {
        let outputLimit: Int
        let onLine: ((String) -> Void)?
        var output: [UInt8] = []
        var error: [UInt8] = []
        /// Each stream's line not yet ended.
        private var pending: [[UInt8]] = [[], []]

        init(outputLimit: Int, onLine: ((String) -> Void)?) {
            self.outputLimit = outputLimit
            self.onLine = onLine
        }

        mutating func drain(out: Int32, err: Int32, child: pid_t, timeLimit: Double, stop: StopSignal?) -> Ending {
            let deadline = Date().addingTimeInterval(timeLimit)
            var open = [true, true]
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var ending = Ending.exited
            while open.contains(true) {
                if Date() >= deadline { ending = .timedOut }
                if stop?.isRaised == true { ending = .stopped }
                if output.count > outputLimit { ending = .tooMuchOutput }
                if ending != .exited {
                    kill(-child, SIGKILL)
                    break
                }
                var polled = [pollfd(fd: open[0] ? out : -1, events: Int16(POLLIN), revents: 0),
                              pollfd(fd: open[1] ? err : -1, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&polled, 2, 200)
                if ready < 0, errno != EINTR { break }
                for index in 0..<2 where open[index] && polled[index].revents != 0 {
                    let count = read(polled[index].fd, &buffer, buffer.count)
                    if count < 0, errno == EINTR || errno == EAGAIN { continue }
                    guard count > 0 else {
                        open[index] = false
                        continue
                    }
                    take(buffer[0..<count], stream: index)
                }
            }
            for index in 0..<2 where !pending[index].isEmpty { line(pending[index]) }
            if output.count > outputLimit { output.removeSubrange(outputLimit...) }
            return ending
        }

        private mutating func take(_ bytes: ArraySlice<UInt8>, stream: Int) {
            if stream == 0 {
                output += bytes.prefix(outputLimit + 1 - min(output.count, outputLimit + 1))
            } else {
                error += bytes
                if error.count > ChildProcess.errorTail { error.removeFirst(error.count - ChildProcess.errorTail) }
            }
            guard onLine != nil else { return }
            for byte in bytes {
                if byte == 10 || byte == 13 {
                    if !pending[stream].isEmpty { line(pending[stream]) }
                    pending[stream] = []
                } else if pending[stream].count < ChildProcess.lineLimit {
                    pending[stream].append(byte)
                }
            }
        }

        private func line(_ bytes: [UInt8]) { onLine?(String(decoding: bytes, as: UTF8.self)) }
    }
}

/// A child process that could not be started: the system's reason.
struct ChildProcessError: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var reason: String { String(cString: strerror(code)) }
}

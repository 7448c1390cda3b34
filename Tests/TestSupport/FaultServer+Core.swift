import Dispatch
import Foundation
import Glibc
import ThreadKit

extension FaultServer {
    /// The listening socket, the shared state and the threads. Threads retain the core, never
    /// the `FaultServer`, so dropping the last reference to the server runs its deinit and stops it.
    final class Core: Sendable {
        struct State: Sendable {
            var resources: [String: ServedResource] = [:]
            var requests: [RecordedRequest] = []
            /// Paths whose bytes at these offsets are not sent, in any answer, until released
            /// (`FaultServer.hold`).
            var holds: [String: Range<Int>] = [:]
            /// Body bytes sent per path, over every answer.
            var sentTotals: [String: Int] = [:]
            /// Connection sockets still open. Only closed under the lock after removal, so
            /// `stop()` never shuts down a descriptor number that was reused meanwhile.
            var openSockets: Set<Int32> = []
            var connectionCount = 0
            /// Body bytes sent so far, across every connection, after each send.
            var sent: [SentBytes] = []
            var sentTotal = 0
            var stopping = false
            var listenerClosed = false
        }

        let state = Locked(State())
        private let listener: Int32
        /// Every running thread is inside this group.
        private let threads = DispatchGroup()

        /// Seconds `stop()` waits for the threads.
        private static let stopTimeout = 10.0

        private let sendBuffer: Int?

        init(listener: Int32, sendBuffer: Int?) {
            self.listener = listener
            self.sendBuffer = sendBuffer
        }

        var isStopping: Bool { state.withLock { $0.stopping } }

        func start() {
            spawn { [self] in acceptLoop() }
        }

        func stop() {
            let first = state.withLock { state -> Bool in
                if state.stopping { return false }
                state.stopping = true
                // Wakes every thread blocked in recv, send or poll on a connection.
                for fd in state.openSockets { shutdown(fd, Int32(SHUT_RDWR)) }
                return true
            }
            // On Linux, shutting down a listening socket makes a blocked accept() return.
            if first { shutdown(listener, Int32(SHUT_RDWR)) }
            _ = threads.wait(timeout: .now() + Self.stopTimeout)
            let closeListener = state.withLock { state -> Bool in
                defer { state.listenerClosed = true }
                return !state.listenerClosed
            }
            if closeListener { close(listener) }
        }

        private func spawn(_ body: @escaping @Sendable () -> Void) {
            threads.enter()
            let thread = Thread { [threads] in
                body()
                threads.leave()
            }
            thread.start()
        }

        private func acceptLoop() {
            while true {
                // accept4 is not exported to Swift; Foundation's Process closes inherited
                // descriptors anyway, FD_CLOEXEC covers other ways of spawning.
                let fd = accept(listener, nil, nil)
                if fd < 0 {
                    if isStopping { return }
                    // EINTR, ECONNABORTED or a passing shortage of descriptors: try again soon.
                    if errno != EINTR && errno != ECONNABORTED { usleep(10_000) }
                    continue
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if var size = sendBuffer.map(Int32.init) {
                    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                }
                let connection = state.withLock { state -> Int? in
                    if state.stopping { return nil }
                    state.openSockets.insert(fd)
                    state.connectionCount += 1
                    return state.connectionCount
                }
                guard let connection else {
                    close(fd)
                    return
                }
                spawn { [self] in
                    serveConnection(fd, number: connection)
                    state.withLock { state in
                        state.openSockets.remove(fd)
                        close(fd)
                    }
                }
            }
        }
    }
}

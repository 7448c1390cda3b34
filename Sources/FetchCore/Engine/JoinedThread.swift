import Foundation

/// A thread that its starter owns and joins: started when made, `join()` waits for its body to
/// return. A run's parts (its remux opener, its feeds, its pool of connections) are such
/// threads, joined before the run ends, so none outlives the download that started it.
final class JoinedThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the body has returned; may be called more than once.
    func join() {
        done.wait()
        done.signal()
    }
}

/// Why a step of a download's run did not go on: a pause or a quit asked it to stop (every byte
/// kept), or it failed. Both are outcomes the run turns into its end state (`state`); neither is
/// a sentence to compare or a failure standing in for a stop.
enum RunHalt: Error, Equatable {
    case stopped
    case failed(DownloadError)

    /// The end state a run that halted here reports.
    var state: DownloadState {
        switch self {
        case .stopped: .paused
        case .failed(let error): .failed(error)
        }
    }

    /// Runs `body` for a caller that is no run: nil when it stopped, its failure thrown.
    static func unlessStopped<T>(_ body: () throws(RunHalt) -> T) throws(DownloadError) -> T? {
        do { return try body() } catch .failed(let error) { throw error } catch { return nil }
    }

    /// Runs `body`, whose errors are failures, in a step that may also stop.
    static func failing<T>(_ body: () throws(DownloadError) -> T) throws(RunHalt) -> T {
        do { return try body() } catch { throw .failed(error) }
    }
}

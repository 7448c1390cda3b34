import Foundation

/// A test hook at the moments where a crash could pair a record with the wrong bytes:
/// `FETCHPLAY_CRASH_AT=NAME` ends the process at once (as SIGKILL or a power cut would, with no
/// cleanup) when it reaches the point NAME, so a test can prove that a crash there loses nothing.
enum CrashPoint: String {
    /// A restarted download's file is synced; its record is not written yet.
    case beforeReplacingRecord = "before-replacing-record"
    /// The record naming the restarted download's file is saved; the old file is still there.
    case afterReplacingRecord = "after-replacing-record"

    private static let armed = ProcessInfo.processInfo.environment["FETCHPLAY_CRASH_AT"]

    func reach() {
        if Self.armed == rawValue { _exit(86) }
    }
}

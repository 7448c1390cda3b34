/// Where one download stands in its life: the one value that says it, kept by the store
/// (`DownloadQueue`) and changed only by `DownloadLife.reduce`.
public enum DownloadPhase: Sendable, Equatable {
    /// Nothing runs; nothing, or a partial, may be on disk.
    case idle
    /// Asked to run, waiting for a free slot; `resting` is where Pause takes it back.
    case waiting(resting: Resting)
    /// Its worker holds a slot and downloads.
    case running
    /// Pause was asked; the worker is winding down and still holds its slot. `thenRun`:
    /// Continue was pressed meanwhile, so it waits for a slot again once stopped.
    case stopping(thenRun: Bool)
    case paused
    /// Stopped by an error after the automatic retries; a partial, if any, is kept.
    case failed(DownloadError)
    case completed(path: String)

    /// The phases a download rests in, where nothing runs.
    public enum Resting: Sendable, Equatable {
        case idle, paused, failed(DownloadError)
    }

    /// The state people see: running and stopping are both `.downloading` until the worker ends.
    public var state: DownloadState {
        switch self {
        case .idle, .waiting(.idle): .idle
        case .paused, .waiting(.paused): .paused
        case .failed(let error), .waiting(.failed(let error)): .failed(error)
        case .running, .stopping: .downloading
        case .completed(let path): .completed(path: path)
        }
    }

    /// Whether a worker holds a slot (running, or winding down).
    public var holdsSlot: Bool {
        switch self {
        case .running, .stopping: true
        default: false
        }
    }

    public var isWaiting: Bool {
        if case .waiting = self { true } else { false }
    }

    init(resting: Resting) {
        switch resting {
        case .idle: self = .idle
        case .paused: self = .paused
        case .failed(let error): self = .failed(error)
        }
    }

    /// The phase a worker's end state leads to.
    init(ended state: DownloadState) {
        switch state {
        case .idle: self = .idle
        case .downloading: self = .running
        case .paused: self = .paused
        case .failed(let error): self = .failed(error)
        case .completed(let path): self = .completed(path: path)
        }
    }

    var resting: Resting? {
        switch self {
        case .idle: .idle
        case .paused: .paused
        case .failed(let error): .failed(error)
        default: nil
        }
    }
}

/// The life of one download as a pure function: `(phase, event) -> (phase, effects)`.
///
/// | phase                      | event              | next                      | effects                      |
/// |----------------------------|--------------------|---------------------------|------------------------------|
/// | idle / paused / failed     | start              | waiting                   | wantSlot                     |
/// | waiting                    | pause              | where it rested           | dropSlotRequest              |
/// | waiting                    | slotGranted        | running                   | startWorker                  |
/// | running                    | pause              | stopping                  | stopWorker                   |
/// | stopping                   | start / pause      | stopping, then run or not | —                            |
/// | running / stopping         | workerEnded(state) | that state's phase        | freeSlot                     |
/// | stopping, then run         | workerEnded(stop)  | waiting, first in line    | freeSlot, wantSlot(first)    |
/// | completed                  | videoMissing       | idle                      | —                            |
/// | idle                       | foundVideo(path)   | completed                 | —                            |
/// | waiting                    | foundVideo(path)   | completed                 | dropSlotRequest              |
/// | anything else              | anything           | unchanged                 | —                            |
///
/// Workers perform the effects and report events; the store grants slots (at most N running,
/// first come first served) and holds nothing else of a download's life.
enum DownloadLife {
    enum Event: Sendable, Equatable {
        case start, pause, slotGranted
        case workerEnded(DownloadState)
        /// A completed video's file is gone (evicted, removed in a file manager).
        case videoMissing
        /// The cache, read after the download was added, holds its finished video.
        case foundVideo(path: String)
    }

    enum Effect: Sendable, Equatable {
        /// Join the line for a slot; `first`: at its front (Continue during a stop).
        case wantSlot(first: Bool)
        case dropSlotRequest
        case startWorker
        case stopWorker
        case freeSlot
    }

    static func reduce(_ phase: DownloadPhase, _ event: Event) -> (DownloadPhase, [Effect]) {
        switch (phase, event) {
        case (.idle, .start), (.paused, .start), (.failed, .start):
            return (.waiting(resting: phase.resting!), [.wantSlot(first: false)])
        case (.waiting(let resting), .pause):
            return (DownloadPhase(resting: resting), [.dropSlotRequest])
        case (.waiting, .slotGranted):
            return (.running, [.startWorker])
        case (.running, .pause):
            return (.stopping(thenRun: false), [.stopWorker])
        case (.stopping, .start):
            return (.stopping(thenRun: true), [])
        case (.stopping, .pause):
            return (.stopping(thenRun: false), [])
        case (.stopping(thenRun: true), .workerEnded(let end)) where end.canContinue:
            let next = DownloadPhase(ended: end)
            return (.waiting(resting: next.resting!), [.freeSlot, .wantSlot(first: true)])
        case (.running, .workerEnded(let end)), (.stopping, .workerEnded(let end)):
            return (DownloadPhase(ended: end), [.freeSlot])
        case (.completed, .videoMissing):
            return (.idle, [])
        case (.idle, .foundVideo(let path)):
            return (.completed(path: path), [])
        case (.waiting, .foundVideo(let path)):
            return (.completed(path: path), [.dropSlotRequest])
        default:
            return (phase, [])
        }
    }
}

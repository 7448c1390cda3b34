@testable import FetchCore
import Testing

/// The life of a download, every row of `DownloadLife.reduce` as one parameterised test.
struct DownloadLifeTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let phase: DownloadPhase
        let event: DownloadLife.Event
        let next: DownloadPhase
        let effects: [DownloadLife.Effect]
        var testDescription: String { "\(phase) + \(event)" }
    }

    static let lost = DownloadError.connectionLost("test")

    static let rows: [Row] = [
        Row(phase: .idle, event: .start, next: .waiting(resting: .idle), effects: [.wantSlot(first: false)]),
        Row(phase: .paused, event: .start, next: .waiting(resting: .paused), effects: [.wantSlot(first: false)]),
        Row(phase: .failed(lost), event: .start, next: .waiting(resting: .failed(lost)), effects: [.wantSlot(first: false)]),
        Row(phase: .waiting(resting: .paused), event: .pause, next: .paused, effects: [.dropSlotRequest]),
        Row(phase: .waiting(resting: .idle), event: .pause, next: .idle, effects: [.dropSlotRequest]),
        Row(phase: .waiting(resting: .idle), event: .start, next: .waiting(resting: .idle), effects: []),
        Row(phase: .waiting(resting: .idle), event: .slotGranted, next: .running, effects: [.startWorker]),
        Row(phase: .running, event: .start, next: .running, effects: []),
        Row(phase: .running, event: .pause, next: .stopping(thenRun: false), effects: [.stopWorker]),
        Row(phase: .stopping(thenRun: false), event: .start, next: .stopping(thenRun: true), effects: []),
        Row(phase: .stopping(thenRun: true), event: .pause, next: .stopping(thenRun: false), effects: []),
        Row(phase: .running, event: .workerEnded(.completed(path: "/v")), next: .completed(path: "/v"), effects: [.freeSlot]),
        Row(phase: .running, event: .workerEnded(.failed(lost)), next: .failed(lost), effects: [.freeSlot]),
        Row(phase: .stopping(thenRun: false), event: .workerEnded(.paused), next: .paused, effects: [.freeSlot]),
        Row(phase: .stopping(thenRun: true), event: .workerEnded(.paused), next: .waiting(resting: .paused),
            effects: [.freeSlot, .wantSlot(first: true)]),
        Row(phase: .stopping(thenRun: true), event: .workerEnded(.completed(path: "/v")), next: .completed(path: "/v"),
            effects: [.freeSlot]),
        Row(phase: .completed(path: "/v"), event: .start, next: .completed(path: "/v"), effects: []),
        Row(phase: .completed(path: "/v"), event: .videoMissing, next: .idle, effects: []),
        Row(phase: .idle, event: .foundVideo(path: "/v"), next: .completed(path: "/v"), effects: []),
        Row(phase: .waiting(resting: .idle), event: .foundVideo(path: "/v"), next: .completed(path: "/v"),
            effects: [.dropSlotRequest]),
        Row(phase: .running, event: .foundVideo(path: "/v"), next: .running, effects: []),
        Row(phase: .idle, event: .pause, next: .idle, effects: []),
        Row(phase: .idle, event: .slotGranted, next: .idle, effects: []),
        Row(phase: .paused, event: .workerEnded(.paused), next: .paused, effects: []),
    ]

    @Test(arguments: rows)
    func transition(_ row: Row) {
        let (next, effects) = DownloadLife.reduce(row.phase, row.event)
        #expect(next == row.next)
        #expect(effects == row.effects)
    }

    @Test func peopleSeeDownloadingUntilTheWorkerEnds() {
        #expect(DownloadPhase.stopping(thenRun: false).state == .downloading)
        #expect(DownloadPhase.waiting(resting: .paused).state == .paused)
        #expect(DownloadPhase.stopping(thenRun: true).holdsSlot && !DownloadPhase.waiting(resting: .idle).holdsSlot)
    }
}

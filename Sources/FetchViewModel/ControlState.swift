import FetchCore

/// What the window's controls show for a download state: a pure value, testable without GTK.
public struct ControlState: Sendable, Equatable {
    public var canStart: Bool
    /// Only the controls that apply show: Start beside the entry for something new, Try Again
    /// for a failure with nothing kept, Pause while it runs, Continue with a partial, Play.
    public var showsStart: Bool
    public var showsRetry: Bool
    public var canPause: Bool
    public var canContinue: Bool
    public var canPlay: Bool
    public var ringTone: RingFrame.Tone
    /// Nil when the total is unknown.
    public var ringFraction: Double?
    /// The error sentence in the failed state.
    public var errorMessage: String?

    /// - Parameters:
    ///   - hasPartial: bytes of this URL are on disk.
    ///   - entryIsNew: the entry holds another URL than the loaded one (Start adds it to the queue,
    ///     even while the loaded one downloads).
    ///   - isWaiting: the loaded download waits for a free slot (Pause takes it out of the line).
    ///   - canWatch: the start of the unfinished video is on disk: it can play while it downloads.
    public init(state: DownloadState, progress: DownloadProgress?, hasPartial: Bool, entryIsNew: Bool = false,
                isWaiting: Bool = false, canWatch: Bool = false) {
        let running = state == .downloading
        canPause = running || isWaiting
        canContinue = !entryIsNew && !isWaiting
            && (state == .paused || (hasPartial && (state == .idle || state.isFailed)))
        showsStart = entryIsNew || (state == .idle && !hasPartial && !isWaiting)
        showsRetry = !entryIsNew && state.isFailed && !canContinue
        canStart = showsStart || showsRetry
        errorMessage = nil
        // No progress at all (nothing loaded): an empty ring without a percentage.
        ringFraction = progress.map { $0.fraction ?? 0 }
        switch state {
        case .completed:
            canPlay = true
            ringTone = .done
            ringFraction = 1
        case .failed(.severalVideos):
            // No failure: a page whose videos wait for a person's choice (the chooser shows;
            // Start asks again). The status line says so.
            canPlay = false
            ringTone = .paused
            showsRetry = false
            showsStart = !isWaiting
            canStart = showsStart
        case .failed(let error):
            canPlay = false
            ringTone = .failed
            errorMessage = error.message
        case .downloading:
            canPlay = canWatch && !entryIsNew
            ringTone = .running
            ringFraction = progress?.fraction
        case .idle, .paused:
            canPlay = canWatch && !entryIsNew
            ringTone = .paused
        }
    }
}

extension DownloadState {
    public var isFailed: Bool {
        if case .failed = self { return true }
        return false
    }
}

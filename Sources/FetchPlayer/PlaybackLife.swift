/// Everything the player knows of the file it plays: what GStreamer confirmed, what was asked,
/// what waits, and the file's tracks. The one value `Player` keeps, changed only by
/// `PlaybackLife.reduce`.
struct PlaybackPhase: Equatable, Sendable {
    /// A pipeline's state, as asked (`target`) or as reached (`current`).
    enum Level: Int, Comparable, Sendable {
        case null, ready, paused, playing
        static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    struct Seek: Equatable, Sendable {
        var seconds: Double
        var accurate: Bool
    }

    // The pipeline: built again when a subtitle file is added, so all of this starts over then.
    var hasPipeline = false
    var target = Level.null
    var current = Level.null
    /// The first frame is ready: PAUSED reached and the preroll's ASYNC_DONE seen.
    var prerolled = false
    /// The ASYNC_DONE of the preroll (posted after its STATE_CHANGED) has not come yet.
    var awaitingPrerollDone = true
    var ended = false
    var failure: PlayerError?
    /// A seek waiting for the preroll or for the seek in flight to finish.
    var pendingSeek: Seek?
    /// The target of the seek in flight.
    var seekTarget: Double?
    /// The pipeline was built again while it played: it plays once the seek back is done.
    var playAfterSeek = false
    /// An audio track chosen while a seek waited or ran.
    var pendingAudioTrack: Int?
    /// A subtitle track (nil: none) chosen while a seek waited or ran.
    var pendingSubtitle: Int??

    // The file: kept when the pipeline is built again.
    /// Seconds, in whole milliseconds, once GStreamer knows it.
    var duration: Double?
    var audioTracks: [String?] = []
    var audioTrack: Int?
    var subtitleTracks: [SubtitleTrack] = []
    var subtitleTrack: Int?
    var subtitleProblem: PlayerError?
    /// The subtitle file given to playbin as its `suburi`, if any.
    var subtitleFile: String?
    /// The subtitle track to show once the tracks are known; nil keeps playbin's choice.
    var wantedSubtitle: SubtitleChoice?

    /// What people see: it changes only when GStreamer confirms a change.
    var shown = PlayerState.idle

    /// Whether a seek is still being carried out.
    var isSeeking: Bool { seekTarget != nil || (pendingSeek != nil && prerolled) }

    /// Nothing left of the pipeline; what is known of the file stays.
    mutating func forgetPipeline() {
        let file = self
        self = PlaybackPhase()
        duration = file.duration
        audioTracks = file.audioTracks
        audioTrack = file.audioTrack
        subtitleTracks = file.subtitleTracks
        subtitleTrack = file.subtitleTrack
        subtitleProblem = file.subtitleProblem
        subtitleFile = file.subtitleFile
        wantedSubtitle = file.wantedSubtitle
        shown = file.shown
    }
}

/// What happens to the player: the user's intents, GStreamer's bus, and what `Player` read from
/// the pipeline when an effect asked it to.
enum PlaybackEvent: Sendable {
    /// Another file is opened (its pipeline is not built yet); a subtitle file beside it.
    case fileOpened(subtitleFile: String?)
    /// A pipeline was built: it prepares its first frame; `resume` is where a pipeline built
    /// again goes back to, and `playing` whether it played.
    case pipelineBuilt(rate: Double, resume: Double?, playing: Bool)
    /// The file is closed.
    case closed
    case failed(PlayerError)
    case play
    case pause
    /// A seek to `seconds`, within the file (`Player` clamps it to the duration).
    case seek(Double, accurate: Bool)
    /// GStreamer refused the seek last asked for.
    case seekRefused
    /// The speed changed; `position` is where the video is now (nil before the first frame).
    case rateChanged(position: Double?)
    /// playbin reached a state (its own STATE_CHANGED, not an element's).
    case reached(PlaybackPhase.Level)
    /// A preroll, a seek or a pause finished; `feedFailure` when the sinks prerolled on the end of
    /// a stream that stopped at a part not downloaded.
    case asyncDone(feedFailure: PlayerError?)
    /// The stream ended; `feedFailure` when it ended where the downloaded bytes did.
    case endOfStream(feedFailure: PlayerError?)
    case durationKnown(Double)
    /// playbin's streams, read once the first frame is ready: `currentAudio` and
    /// `currentSubtitle` are playbin's own choice (nil: its text flag is off).
    case streamsKnown(audio: [String?], currentAudio: Int, subtitles: [SubtitleTrack], currentSubtitle: Int?)
    case audioTrackChosen(Int)
    case subtitleChosen(Int?)
    /// A subtitle file was given; `readable` when it exists and names a file.
    case subtitleFileGiven(String, readable: Bool)
}

/// What the player must do to GStreamer for an event: `Player` carries these out in order.
enum PlaybackEffect: Equatable, Sendable {
    /// Ask the pipeline for this state.
    case request(PlaybackPhase.Level)
    /// Seek there (frames still on their way are from before it), at the player's speed; a
    /// refusal comes back as `.seekRefused`.
    case seek(Double, accurate: Bool)
    /// Read the duration and the streams: they come back as `.durationKnown` and `.streamsKnown`.
    case readStreams
    case readDuration
    case switchAudio(Int)
    case showSubtitle(Int?)
    /// Draw the paused frame again: an accurate seek to where the video is.
    case redrawPausedFrame
    /// Stop the pipeline (it failed).
    case stop
    /// Build the pipeline again where the video is (playbin takes a subtitle file only when it
    /// opens a file).
    case rebuild
}

/// The life of a played file as a pure function: `(phase, event) -> (phase, effects)`.
///
/// - A seek asked for before the first frame, or while another runs, waits (a newer one replaces
///   it) and starts when the one before is done.
/// - An audio or subtitle track chosen while a seek waits or runs is switched to once it is done:
///   switching streams during a flushing seek can deadlock GStreamer 1.22.
/// - The state shown changes only when GStreamer confirms it; between two states it stays.
enum PlaybackLife {
    static func reduce(_ phase: inout PlaybackPhase, _ event: PlaybackEvent) -> [PlaybackEffect] {
        var effects: [PlaybackEffect] = []
        apply(event, to: &phase, &effects)
        phase.shown = shown(phase)
        return effects
    }

    private static func apply(_ event: PlaybackEvent, to phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        switch event {
        case .fileOpened(let subtitleFile):
            phase = PlaybackPhase()
            phase.subtitleFile = subtitleFile
            // A subtitle file named like the video was put there to be shown.
            if subtitleFile != nil { phase.wantedSubtitle = .external }

        case .pipelineBuilt(let rate, let resume, let playing):
            phase.forgetPipeline()
            phase.hasPipeline = true
            phase.target = .paused
            effects.append(.request(.paused))
            // A new pipeline plays at speed 1 until a seek says otherwise.
            if rate != 1 { phase.pendingSeek = .init(seconds: 0, accurate: true) }
            if let resume { phase.pendingSeek = .init(seconds: resume, accurate: true) }
            if playing {
                // Shown as loading until it plays again from where it was, not from the start.
                phase.target = .playing
                phase.playAfterSeek = true
            }

        case .closed:
            phase = PlaybackPhase()

        case .failed(let error):
            fail(error, &phase, &effects)

        case .play:
            guard phase.hasPipeline, phase.failure == nil else { return }
            phase.playAfterSeek = false
            if phase.ended {
                phase.ended = false
                phase.pendingSeek = nil
                startSeek(0, accurate: true, &phase, &effects)
            }
            phase.target = .playing
            effects.append(.request(.playing))

        case .pause:
            guard phase.hasPipeline, phase.failure == nil else { return }
            phase.playAfterSeek = false
            phase.target = .paused
            effects.append(.request(.paused))

        case .seek(let seconds, let accurate):
            guard phase.hasPipeline, phase.failure == nil, seconds.isFinite else { return }
            if !phase.prerolled || phase.seekTarget != nil {
                phase.pendingSeek = .init(seconds: seconds, accurate: accurate)
                return
            }
            startSeek(seconds, accurate: accurate, &phase, &effects)

        case .seekRefused:
            phase.seekTarget = nil
            settle(&phase, &effects)

        case .rateChanged(let position):
            // Every seek sets the speed: one in flight or waiting carries the new one.
            guard phase.hasPipeline, phase.failure == nil, !phase.ended else { return } // play() after the end seeks
            if let target = phase.seekTarget, phase.pendingSeek == nil { phase.pendingSeek = .init(seconds: target, accurate: true) }
            if !phase.prerolled, phase.pendingSeek == nil { phase.pendingSeek = .init(seconds: position ?? 0, accurate: true) }
            guard phase.prerolled, phase.seekTarget == nil, phase.pendingSeek == nil else { return }
            startSeek(position ?? 0, accurate: true, &phase, &effects)

        case .reached(let level):
            guard phase.hasPipeline, phase.failure == nil else { return }
            phase.current = level
            completePreroll(&phase, &effects)

        case .asyncDone(let feedFailure):
            guard phase.hasPipeline, phase.failure == nil else { return }
            if let feedFailure { return fail(feedFailure, &phase, &effects) }
            if phase.awaitingPrerollDone {
                phase.awaitingPrerollDone = false
                completePreroll(&phase, &effects)
            } else {
                phase.seekTarget = nil // a seek (or a pause) finished
                settle(&phase, &effects)
            }

        case .endOfStream(let feedFailure):
            guard phase.hasPipeline, phase.failure == nil else { return }
            if let feedFailure { return fail(feedFailure, &phase, &effects) }
            phase.ended = true

        case .durationKnown(let seconds):
            phase.duration = seconds

        case .streamsKnown(let audio, let currentAudio, let subtitles, let currentSubtitle):
            let audioTrack = phase.pendingAudioTrack ?? currentAudio
            phase.audioTracks = audio
            phase.audioTrack = audio.indices.contains(audioTrack) ? audioTrack : nil
            if let file = phase.subtitleFile, !subtitles.contains(where: { $0.file != nil }) {
                phase.subtitleProblem = .notSubtitles(path: file)
            }
            var shown: Int?
            switch phase.wantedSubtitle {
            case .external: shown = subtitles.firstIndex { $0.file != nil } ?? currentSubtitle
            case .index(let index) where subtitles.indices.contains(index): shown = index
            case .off: shown = nil
            case .index, nil: shown = currentSubtitle
            }
            phase.wantedSubtitle = nil
            // The first frame's seek (a remembered position or speed) may run: switched after it.
            if shown != currentSubtitle {
                if phase.pendingSeek != nil || phase.seekTarget != nil { phase.pendingSubtitle = .some(shown) }
                else { effects.append(.showSubtitle(shown)) }
            }
            phase.subtitleTracks = subtitles
            phase.subtitleTrack = shown

        case .audioTrackChosen(let index):
            guard phase.hasPipeline, phase.audioTracks.indices.contains(index), index != phase.audioTrack else { return }
            phase.audioTrack = index
            phase.pendingAudioTrack = index
            switchPendingAudioTrack(&phase, &effects)

        case .subtitleChosen(let index):
            guard phase.hasPipeline, phase.failure == nil else { return }
            if let index, !phase.subtitleTracks.indices.contains(index) { return }
            guard phase.prerolled else {
                phase.wantedSubtitle = index.map(SubtitleChoice.index) ?? .off
                return
            }
            guard index != phase.subtitleTrack else { return }
            phase.subtitleTrack = index
            phase.pendingSubtitle = .some(index)
            switchPendingSubtitle(&phase, &effects)

        case .subtitleFileGiven(let path, let readable):
            guard phase.hasPipeline, phase.failure == nil else { return }
            guard readable else {
                phase.subtitleProblem = .fileNotFound(path: path)
                return
            }
            phase.subtitleProblem = nil
            phase.subtitleFile = path
            phase.wantedSubtitle = .external
            effects.append(.rebuild)
        }
    }

    /// Once both the PAUSED state and the preroll's ASYNC_DONE are in: the streams, the seek
    /// that waited.
    private static func completePreroll(_ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        guard !phase.prerolled, !phase.awaitingPrerollDone, phase.current >= .paused else { return }
        phase.prerolled = true
        effects.append(.readStreams)
        startPendingSeek(&phase, &effects)
    }

    /// A seek is done (or was refused): what waited for it goes on.
    private static func settle(_ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        if phase.duration == nil { effects.append(.readDuration) }
        startPendingSeek(&phase, &effects)
        switchPendingAudioTrack(&phase, &effects)
        switchPendingSubtitle(&phase, &effects)
        if phase.playAfterSeek, phase.seekTarget == nil {
            phase.playAfterSeek = false
            effects.append(.request(.playing))
        }
    }

    private static func startPendingSeek(_ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        guard let seek = phase.pendingSeek else { return }
        phase.pendingSeek = nil
        startSeek(seek.seconds, accurate: seek.accurate, &phase, &effects)
    }

    private static func startSeek(_ seconds: Double, accurate: Bool, _ phase: inout PlaybackPhase,
                                  _ effects: inout [PlaybackEffect]) {
        guard phase.hasPipeline else { return }
        phase.ended = false
        phase.seekTarget = seconds
        effects.append(.seek(seconds, accurate: accurate))
    }

    private static func switchPendingAudioTrack(_ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        guard let index = phase.pendingAudioTrack, phase.hasPipeline, phase.prerolled,
              phase.seekTarget == nil, phase.pendingSeek == nil else { return }
        phase.pendingAudioTrack = nil
        effects.append(.switchAudio(index))
    }

    /// Shows the chosen subtitle track if no seek waits or runs; a paused video draws its frame
    /// again with it.
    private static func switchPendingSubtitle(_ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        guard let choice = phase.pendingSubtitle, phase.prerolled, phase.seekTarget == nil,
              phase.pendingSeek == nil else { return }
        phase.pendingSubtitle = nil
        effects.append(.showSubtitle(choice))
        if phase.target == .paused, !phase.ended { effects.append(.redrawPausedFrame) }
    }

    private static func fail(_ error: PlayerError, _ phase: inout PlaybackPhase, _ effects: inout [PlaybackEffect]) {
        phase.failure = error
        phase.pendingSeek = nil
        phase.seekTarget = nil
        effects.append(.stop)
    }

    /// The state people see, derived from what GStreamer reported.
    private static func shown(_ phase: PlaybackPhase) -> PlayerState {
        if let failure = phase.failure { return .failed(failure) }
        if !phase.hasPipeline { return .idle }
        if phase.ended { return .ended }
        if !phase.prerolled { return .loading }
        if phase.current == phase.target { return phase.target == .playing ? .playing : .paused }
        return phase.shown // between two states: keep showing the last confirmed one
    }
}

// FetchPlayer: plays one video file through a GStreamer `playbin`, with no GTK.
//
//     Player                 the main-actor object the UI drives and observes
//     ├── PlayerState        idle / loading / paused / playing / ended / failed, notified on change
//     ├── PlaybackLife       the pure reducer: (PlaybackPhase, PlaybackEvent) -> PlaybackEffects
//     ├── PlayerError        why a file cannot play, as a sentence; made from GStreamer errors
//     │                      only in PlayerError+GStreamer.swift
//     ├── SubtitleTrack      a subtitle stream in the file or a subtitle file beside it, named
//     │                      for a menu; chosen in Player+Subtitles.swift
//     ├── Player+BusMessages each bus message of the open pipeline as one PlaybackEvent
//     ├── Player+Effects     what the reducer asks for, carried out on the pipeline
//     ├── Player+AudioTracks the file's audio streams; a switch waits for any seek to finish
//     ├── DecoderPreload     the usual demuxers' and decoders' plug-ins, loaded at start-up
//     ├── Pipeline           one playbin per opened file, its bus watch on the main context, its
//     │                      state changes (NULL too) on the player's worker
//     │   ├── VideoSink      videoconvertscale ! appsink (BGRA, square pixels, at most the view's size)
//     │   │   └── VideoFrame mapped buffer wrapped in GBytes, no copy; relayed to main in order
//     │   ├── AudioOutput    autoaudiosink, or a clock-keeping fakesink when there is no device
//     │   └── scaletempo     the audio filter: other speeds (`rate`) keep the sound's pitch
//     ├── Thumbnailer        one frame or the duration of a file, with a timeout; its workers stop
//     │                      the probes they run when it goes
//     ├── Remuxer            streams into one MP4 as they arrive (HLS, DASH); its StreamLinker
//     │                      links what parsebin finds into mp4mux
//     ├── AudioTrackCopier   a finished file's first audio track into .m4a or .webm, not encoded
//     │                      again (audio only)
//     └── GStreamer          gst_init once, properties through GValue, time units, seeks
//
// Threads: `Player` lives on the main thread (the GLib main context). State changes are asked
// for there and carried out on the player's own `Worker` (`set_state` can wait for streaming
// threads), which the process's `Shutdown` joins in its `.playback` stage once the player goes;
// bus messages arrive through `gst_bus_add_watch`, on the main context. Frames are produced on a streaming thread
// and reach the main thread through an `OrderedRelay`: in order, at most two waiting, at most one
// pending main-loop callback.
//
// State: what the player knows of the file (asked, confirmed, waiting, its tracks) is one value,
// `PlaybackPhase`, changed only by the pure function `PlaybackLife.reduce` from events: the
// user's commands, the bus messages (`handle(_:)` turns each into one), and what the pipeline
// answered when an effect asked. `Player` carries out the effects and tells observers what really
// changed once an event and everything it led to are done.
import CGLib
import CGStreamer
import FetchCore
import GLibSupport
import Localization
import ThreadKit

/// Plays one video file at a time.
///
/// `open(path:)` prepares the first frame (state `.loading`, then `.paused`); `play()`,
/// `pause()` and `seek(to:accurate:)` drive it; `observe(_:)` reports state and duration
/// changes; `observeFrames(_:)` receives each new picture on the main thread.
@MainActor
public final class Player {
    /// What the player is doing.
    public var state: PlayerState { phase.shown }
    /// Seconds, once the file is prerolled and GStreamer knows it.
    public var duration: Double? { phase.duration }
    /// The file open now.
    public private(set) var path: String?
    /// The newest frame delivered, kept for a view that appears later.
    public private(set) var currentFrame: VideoFrame?
    /// Frames delivered to the main thread since the player was made (for tests and statistics).
    public private(set) var framesDelivered = 0
    /// Frames delivered since the current file was opened.
    private(set) var framesDeliveredForFile = 0
    /// Whether a seek is still being carried out.
    public var isSeeking: Bool { phase.isSeeking }

    /// Linear volume, 0…1.
    public var volume: Double = 1 {
        didSet {
            volume = min(1, max(0, volume.isNaN ? 1 : volume))
            guard volume != oldValue else { return }
            // Logged where it failed; the video plays on at the old volume.
            if let pipeline { try? GStreamer.setProperty(pipeline.playbin, "volume", .double(volume)) }
            notify(.volume(volume, muted: isMuted))
        }
    }

    /// The file's audio tracks, in playbin's order: each one's language code when the file
    /// names it ("en", "fra"). Known once the first frame is ready.
    public var audioTracks: [String?] { phase.audioTracks }
    /// The audio track playing, an index into `audioTracks`; nil without tracks.
    public var audioTrack: Int? { phase.audioTrack }

    /// The video's subtitle tracks, the file's own and a subtitle file's (`addSubtitle(file:)`,
    /// or one named like the video beside it). Known once the first frame is ready.
    public var subtitleTracks: [SubtitleTrack] { phase.subtitleTracks }
    /// The subtitle track shown, an index into `subtitleTracks`; nil when subtitles are off.
    public var subtitleTrack: Int? { phase.subtitleTrack }
    /// Why the last subtitle file given could not be shown, if it could not (the video plays on).
    public var subtitleProblem: PlayerError? { phase.subtitleProblem }

    /// The speed range `rate` keeps to (half to twice the normal speed).
    public static let rates: ClosedRange<Double> = 0.5...2

    /// Playback speed: 1 normal, 2 twice as fast; within `rates`. The sound keeps its pitch.
    /// Kept across files; applied with a seek to where the video is.
    public var rate: Double = 1 {
        didSet {
            rate = min(Self.rates.upperBound, max(Self.rates.lowerBound, rate.isFinite ? rate : 1))
            guard rate != oldValue else { return }
            send(.rateChanged(position: position))
            notify(.rate(rate))
        }
    }

    public var isMuted = false {
        didSet {
            guard isMuted != oldValue else { return }
            if let pipeline { try? GStreamer.setProperty(pipeline.playbin, "mute", .bool(isMuted)) }
            notify(.volume(volume, muted: isMuted))
        }
    }

    /// The playback position in seconds; while a seek runs, the position asked for.
    ///
    /// Poll it (e.g. from a tick callback); it is not notified.
    public var position: Double? {
        guard let pipeline, phase.prerolled, phase.failure == nil else { return nil }
        if let pendingSeek = phase.pendingSeek { return pendingSeek.seconds }
        if let seekTarget = phase.seekTarget { return seekTarget }
        if phase.ended, let duration { return duration }
        // During a flush the query can fail for a moment: keep the last known position then.
        if let seconds = GStreamer.position(of: pipeline.playbin) { lastPosition = seconds }
        return lastPosition
    }

    /// The one value of the file's playback (see `PlaybackLife`).
    private(set) var phase = PlaybackPhase()
    private let audio: AudioOutput
    /// The largest frame wanted (`limitFrameSize`), kept across files.
    private var frameLimit: (Int, Int)?
    private(set) var pipeline: Pipeline?
    /// What was opened, to build the pipeline again (a subtitle file added).
    private(set) var opened: (uri: String, source: ByteSource?)?
    /// The server of the presentation opened with `open(watching:)`, closed with it.
    private var watching: WatchServer?
    /// Counts opened files, so messages and frames of a closed pipeline are ignored.
    private(set) var generation = 0
    /// The last position the pipeline answered (a cache of a query, not state).
    var lastPosition: Double?
    /// The plug-in a bus message said is missing, for the error that follows.
    var missingPlugin: String?
    /// How deep `changing` runs: observers hear of changes once the outermost is done.
    private var changeDepth = 0
    private let changes = Observers<Change>()
    private let frames = Observers<VideoFrame>()
    /// The one thread that changes this player's pipelines' states, in the order asked. When the
    /// player goes, it takes the last pipeline down and ends; `shutdown` joins it.
    private let states: Worker

    /// - Parameters:
    ///   - audio: `.automatic` plays through the default device when there is one; `.none`
    ///     plays silently (tests, previews).
    ///   - shutdown: joins the player's worker once the player is gone (at quit at the latest,
    ///     in its `.playback` stage); nil: the player's deinit waits for its worker itself.
    public init(audio: AudioOutput = .automatic, shutdown: Shutdown? = .process) {
        GStreamer.initialize()
        self.audio = audio
        states = Worker(name: "fetchplay player", stage: .playback, in: shutdown)
    }

    /// Threads of the player's worker still running (one until the player goes; tests).
    nonisolated var workerThreads: Int { states.runningThreads }

    // MARK: Observing

    /// Calls `body` on every real change of state, duration or volume, for the player's life.
    public func observe(_ body: @escaping @MainActor (Change) -> Void) { changes.add(body) }

    /// Calls `body` on every real change until the returned token is dropped.
    public func observation(_ body: @escaping @MainActor (Change) -> Void) -> ObserverToken { changes.observe(body) }

    /// Calls `body` with every new frame, on the main thread (frames nobody saw in time are
    /// dropped), for the player's life. Every observer added is called: none replaces another.
    public func observeFrames(_ body: @escaping @MainActor (VideoFrame) -> Void) { frames.add(body) }

    /// Calls `body` with every new frame until the returned token is dropped.
    public func frameObservation(_ body: @escaping @MainActor (VideoFrame) -> Void) -> ObserverToken { frames.observe(body) }

    private func notify(_ change: Change) { changes.notify(change) }

    /// Runs `body`, then tells observers what changed in the phase. Nested (an effect that sends
    /// an event), only the outermost tells, so nobody hears a value that is already old.
    func changing(_ body: () -> Void) {
        let before = phase
        changeDepth += 1
        body()
        changeDepth -= 1
        guard changeDepth == 0 else { return }
        if phase.duration != before.duration { notify(.duration(phase.duration)) }
        if phase.audioTracks != before.audioTracks || phase.audioTrack != before.audioTrack { notify(.audioTracks) }
        if phase.subtitleTracks != before.subtitleTracks || phase.subtitleTrack != before.subtitleTrack
            || phase.subtitleProblem != before.subtitleProblem {
            notify(.subtitles)
        }
        if phase.shown != before.shown { notify(.state(phase.shown)) }
    }

    /// Changes the phase by `event` and carries out what it asks for, in order.
    func send(_ event: PlaybackEvent) {
        changing {
            for effect in PlaybackLife.reduce(&phase, event) { perform(effect) }
        }
    }

    // MARK: Commands

    /// Opens a local file and prepares its first frame; any file open before is closed.
    public func open(path: String) {
        changing {
            dropFile()
            self.path = path
            guard GStreamer.fileExists(path) else {
                send(.fileOpened(subtitleFile: nil))
                return send(.failed(.fileNotFound(path: path)))
            }
            guard let uri = String.fileURI(forPath: path) else {
                send(.fileOpened(subtitleFile: nil))
                return send(.failed(.other(String(format: tr("“%1$@” is not a valid file name."), path))))
            }
            opened = (uri, nil)
            send(.fileOpened(subtitleFile: SubtitleTrack.file(beside: path)))
            load(uri: uri, feed: nil)
        }
    }

    /// Opens a video that may still be arriving (`source`): it plays as far as its bytes are
    /// there and waits for the rest; `title` names it in messages.
    public func open(source: ByteSource, title: String) {
        changing {
            dropFile()
            path = title
            opened = ("appsrc://", source)
            send(.fileOpened(subtitleFile: nil))
            load(uri: "appsrc://", feed: StreamFeed(source: source))
        }
    }

    /// Opens an HLS or DASH presentation that may still be downloading, served by `server`
    /// (which the player closes with the video): it plays as far as its segments are there and
    /// waits for the rest; a seek ahead makes the download fetch the segments there next.
    public func open(watching server: WatchServer, title: String) {
        changing {
            dropFile()
            path = title
            watching = server
            opened = (server.url, nil)
            send(.fileOpened(subtitleFile: server.subtitleFile))
            load(uri: server.url, feed: nil)
        }
    }

    /// A video that is still arriving waits for bytes that are not on disk yet (the window shows a
    /// spinner; playback goes on by itself once they come).
    public var isBuffering: Bool { pipeline?.feed?.isWaiting ?? watching?.isWaiting ?? false }

    /// Builds the pipeline for `uri` (with the subtitle file, if any) and prepares its first
    /// frame; a pipeline built again goes back to `resume` and plays if it `playing`.
    func load(uri: String, feed: StreamFeed?, resume: Double? = nil, playing: Bool = false) {
        let generation = self.generation
        // Two frames may wait for the main loop: one that was busy a little longer than a frame
        // still shows every frame, a little late (the view paces them, one per paint).
        let relay = OrderedRelay<VideoFrame>(depth: 2) { [weak self] frame in
            self?.deliver(frame, generation: generation)
        }
        let subtitles = phase.subtitleFile.flatMap(String.fileURI(forPath:))
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(uri: uri, subtitles: subtitles, audio: audio, frames: FrameOutput(relay: relay), feed: feed,
                                    states: states)
        } catch {
            return send(.failed(error))
        }
        self.pipeline = pipeline
        if let frameLimit {
            VideoSink.setCaps(VideoSink.caps(maxWidth: frameLimit.0, maxHeight: frameLimit.1), on: pipeline.appsink)
        }
        // Logged where they failed; the video still plays, at playbin's own volume.
        try? GStreamer.setProperty(pipeline.playbin, "volume", .double(volume))
        try? GStreamer.setProperty(pipeline.playbin, "mute", .bool(isMuted))
        pipeline.watchBus(BusTarget(player: self, generation: generation))
        send(.pipelineBuilt(rate: rate, resume: resume, playing: playing))
        watchPreroll(generation: generation)
    }

    /// Checks every `prerollCheckInterval` until the first frame is ready that the preroll can
    /// still finish: once every streaming thread has stopped (twice in a row, so a thread
    /// handing over to the next is not taken for it), the file fails as damaged instead of
    /// loading forever (see `Pipeline.streamingStopped`).
    private func watchPreroll(generation: Int) {
        var stoppedChecks = 0
        MainContext.every(milliseconds: Self.prerollCheckInterval) { [weak self] in
            guard let self, generation == self.generation, let pipeline = self.pipeline, !self.phase.prerolled,
                  self.phase.failure == nil else { return false }
            stoppedChecks = pipeline.streamingStopped ? stoppedChecks + 1 : 0
            guard stoppedChecks >= 2 else { return true }
            self.send(.failed(.corrupt(detail: "every streaming thread stopped before the first frame")))
            return false
        }
    }

    /// Milliseconds between two looks at a preroll's streaming threads.
    static let prerollCheckInterval: UInt32 = 250

    /// Starts or resumes playback; after the end, starts again from the beginning.
    public func play() { send(.play) }

    public func pause() { send(.pause) }

    /// Moves to `seconds`: `accurate: false` jumps to the nearest key frame (fast, for dragging),
    /// `accurate: true` to the exact time (on release).
    ///
    /// A seek asked for before the first frame is ready, or while another seek runs, waits and
    /// is replaced by any newer one.
    public func seek(to seconds: Double, accurate: Bool) {
        guard seconds.isFinite else { return }
        var seconds = max(0, seconds)
        if let duration { seconds = min(seconds, duration) }
        send(.seek(seconds, accurate: accurate))
    }

    /// Frames arrive no larger than `width` x `height` pixels (aspect ratio kept, never enlarged);
    /// nil for the video's own size. Set it to the size the view shows, in device pixels.
    public func limitFrameSize(width: Int?, height: Int?) {
        let limit = width.flatMap { width in height.map { (width, $0) } }
        guard limit?.0 != frameLimit?.0 || limit?.1 != frameLimit?.1 else { return }
        frameLimit = limit
        if let pipeline {
            VideoSink.setCaps(VideoSink.caps(maxWidth: limit?.0, maxHeight: limit?.1), on: pipeline.appsink)
        }
    }

    /// Stops playback and releases the file (state NULL, bus watch removed).
    public func close() {
        changing {
            dropFile()
            send(.closed)
        }
    }

    private func deliver(_ frame: VideoFrame, generation: Int) {
        guard generation == self.generation, pipeline != nil, phase.failure == nil else { return }
        currentFrame = frame
        framesDelivered += 1
        framesDeliveredForFile += 1
        frames.notify(frame)
    }

    /// Stops and forgets the pipeline and what it said; the phase forgets it with the next event.
    func dropPipeline() {
        pipeline?.stop()
        pipeline = nil
        generation += 1
        lastPosition = nil
        missingPlugin = nil
    }

    /// Drops the pipeline and the file.
    private func dropFile() {
        dropPipeline()
        watching?.close()
        watching = nil
        path = nil
        opened = nil
        currentFrame = nil
        framesDeliveredForFile = 0
    }
}

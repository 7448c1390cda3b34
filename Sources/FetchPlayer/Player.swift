// FetchPlayer: plays one video file through a GStreamer `playbin`, with no GTK.
//
//     Player                 the main-actor object the UI drives and observes
//     ├── PlayerState        idle / loading / paused / playing / ended / failed, notified on change
//     ├── PlaybackLife       the pure reducer: (PlaybackPhase, PlaybackEvent) -> PlaybackEffects
//     ├── PlayerError        why a file cannot play, as a sentence; made from GStreamer errors
//     │                      only in PlayerError+GStreamer.swift
//     ├── SubtitleTrack      a subtitle stream in the file or a subtitle file beside it, named
//     │                      for a menu; chosen in Player+Subtitles.swift
//     ├── Player+AudioTracks the file's audio streams; a switch waits for any seek to finish
//     ├── DecoderPreload     the usual demuxers' and decoders' plug-ins, loaded at start-up
//     ├── Pipeline           one playbin per opened file, its bus watch on the main context, its
//     │                      state changes (NULL too) on a queue of their own
//     │   ├── VideoSink      videoconvertscale ! appsink (BGRA, square pixels, at most the view's size)
//     │   │   └── VideoFrame mapped buffer wrapped in GBytes, no copy; relayed to main in order
//     │   ├── AudioOutput    autoaudiosink, or a clock-keeping fakesink when there is no device
//     │   └── scaletempo     the audio filter: other speeds (`rate`) keep the sound's pitch
//     ├── Thumbnailer        one frame or the duration of a file, synchronously with a timeout
//     └── GStreamer          gst_init once, properties through GValue, time units, seeks
//
// Threads: `Player` lives on the main thread (the GLib main context). State changes are asked
// for there and carried out on one serial queue (`set_state` can wait for streaming threads);
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
import GLibSupport
import Localization

/// Plays one video file at a time.
///
/// `open(path:)` prepares the first frame (state `.loading`, then `.paused`); `play()`,
/// `pause()` and `seek(to:accurate:)` drive it; `observe(_:)` reports state and duration
/// changes; `onFrame` receives each new picture on the main thread.
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
    /// Called on the main thread with every new frame (frames nobody saw in time are dropped).
    public var onFrame: (@MainActor (VideoFrame) -> Void)?

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
    private var opened: (uri: String, source: ByteSource?)?
    /// Counts opened files, so messages and frames of a closed pipeline are ignored.
    private(set) var generation = 0
    /// The last position the pipeline answered (a cache of a query, not state).
    private var lastPosition: Double?
    private var missingPlugin: String?
    /// How deep `changing` runs: observers hear of changes once the outermost is done.
    private var changeDepth = 0
    private var observers: [Int: @MainActor (Change) -> Void] = [:]
    private var nextObserverID = 0

    /// - Parameter audio: `.automatic` plays through the default device when there is one;
    ///   `.none` plays silently (tests, previews).
    public init(audio: AudioOutput = .automatic) {
        GStreamer.initialize()
        self.audio = audio
    }

    // MARK: Observing

    /// Calls `body` on every real change of state, duration or volume, until removed.
    @discardableResult
    public func observe(_ body: @escaping @MainActor (Change) -> Void) -> Observation {
        nextObserverID += 1
        observers[nextObserverID] = body
        return Observation(id: nextObserverID)
    }

    public func removeObservation(_ observation: Observation) {
        observers[observation.id] = nil
    }

    private func notify(_ change: Change) {
        for id in observers.keys.sorted() { observers[id]?(change) }
    }

    /// Runs `body`, then tells observers what changed in the phase. Nested (an effect that sends
    /// an event), only the outermost tells, so nobody hears a value that is already old.
    private func changing(_ body: () -> Void) {
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
            guard let uri = GStreamer.uri(forPath: path) else {
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

    /// A video that is still arriving waits for bytes that are not on disk yet (the window shows a
    /// spinner; playback goes on by itself once they come).
    public var isBuffering: Bool { pipeline?.feed?.isWaiting ?? false }

    /// Builds the pipeline for `uri` (with the subtitle file, if any) and prepares its first
    /// frame; a pipeline built again goes back to `resume` and plays if it `playing`.
    private func load(uri: String, feed: StreamFeed?, resume: Double? = nil, playing: Bool = false) {
        let generation = self.generation
        // Two frames may wait for the main loop: one that was busy a little longer than a frame
        // still shows every frame, a little late (the view paces them, one per paint).
        let relay = OrderedRelay<VideoFrame>(depth: 2) { [weak self] frame in
            self?.deliver(frame, generation: generation)
        }
        let subtitles = phase.subtitleFile.flatMap(GStreamer.uri(forPath:))
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(uri: uri, subtitles: subtitles, audio: audio, frames: FrameOutput(relay: relay), feed: feed)
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

    // MARK: Bus messages

    /// Turns one bus message of the current pipeline into an event. Runs on the main context.
    func handle(_ message: UnsafeMutablePointer<GstMessage>, generation: Int) {
        guard generation == self.generation, let pipeline, phase.failure == nil else { return }
        switch message.pointee.type {
        case GST_MESSAGE_ERROR:
            // A demuxer that read into a part not downloaded may take the end for damage.
            send(.failed(pipeline.feed?.failure ?? PlayerError.from(errorMessage: message, missingPlugin: missingPlugin, path: path)))
        case GST_MESSAGE_ELEMENT:
            if let description = PlayerError.missingPluginDescription(message) {
                missingPlugin = description
            }
        case GST_MESSAGE_EOS:
            // The stream ended where the bytes did: played up to a part not downloaded.
            send(.endOfStream(feedFailure: pipeline.feed?.failure))
        case GST_MESSAGE_STATE_CHANGED:
            guard UnsafeMutableRawPointer(message.pointee.src) == UnsafeMutableRawPointer(pipeline.playbin)
            else { return }
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            send(.reached(PlaybackPhase.Level(new)))
        case GST_MESSAGE_DURATION_CHANGED:
            changing { readDuration() }
        case GST_MESSAGE_ASYNC_DONE:
            // A preroll or a seek that ended at a part not downloaded: the sinks prerolled on
            // the end of the stream, and the EOS message would come only once playing.
            let failure = pipeline.feed?.failure
            send(.asyncDone(feedFailure: failure != nil && gst_app_sink_is_eos(pipeline.appsink) != 0 ? failure : nil))
        default:
            break
        }
    }

    // MARK: Effects

    private func perform(_ effect: PlaybackEffect) {
        switch effect {
        case .request(let level):
            pipeline?.request(level.gstState)
        case .seek(let seconds, let accurate):
            guard let pipeline else { return }
            // Frames still on their way are from before the seek; the seek's own come after.
            pipeline.frames.discardWaiting()
            if GStreamer.seek(pipeline.playbin, to: seconds, accurate: accurate, rate: rate) {
                lastPosition = seconds
            } else {
                send(.seekRefused)
            }
        case .readStreams:
            readDuration()
            readStreams()
        case .readDuration:
            readDuration()
        case .switchAudio(let index):
            // Logged where it failed; the track playing goes on.
            if let pipeline { try? GStreamer.setProperty(pipeline.playbin, "current-audio", .int(Int64(index))) }
        case .showSubtitle(let index):
            showSubtitle(index)
        case .redrawPausedFrame:
            if let position { send(.seek(position, accurate: true)) }
        case .stop:
            pipeline?.stop()
        case .rebuild:
            rebuild()
        }
    }

    /// Seconds the pipeline has played (running time: its clock, pauses left out), for tests
    /// that compare it with the position.
    var runningTime: Double? { pipeline.flatMap { GStreamer.runningTime(of: $0.playbin) } }

    private func readDuration() {
        // Whole milliseconds: a length refined by a fraction of one (1.0 then 1.000333 s) is no
        // change anyone sees.
        guard let pipeline, let exact = GStreamer.duration(of: pipeline.playbin) else { return }
        let seconds = (exact * 1000).rounded() / 1000
        guard seconds != phase.duration else { return }
        send(.durationKnown(seconds))
    }

    /// Reads playbin's audio and text streams once the first frame is ready.
    private func readStreams() {
        guard let pipeline else { return }
        let (audio, currentAudio) = readAudioTracks(pipeline.playbin)
        let (subtitles, currentSubtitle) = readSubtitleTracks(pipeline.playbin)
        send(.streamsKnown(audio: audio, currentAudio: currentAudio, subtitles: subtitles, currentSubtitle: currentSubtitle))
    }

    private func deliver(_ frame: VideoFrame, generation: Int) {
        guard generation == self.generation, pipeline != nil, phase.failure == nil else { return }
        currentFrame = frame
        framesDelivered += 1
        framesDeliveredForFile += 1
        onFrame?(frame)
    }

    /// Builds the pipeline again where the video is (a subtitle file was added: playbin takes one
    /// only when it opens a file), keeping the picture shown and whether it plays.
    private func rebuild() {
        guard let opened, phase.failure == nil else { return }
        let resume = phase.ended ? 0 : (position ?? phase.pendingSeek?.seconds ?? 0)
        let playing = phase.target == .playing && !phase.ended
        dropPipeline()
        load(uri: opened.uri, feed: opened.source.map(StreamFeed.init), resume: resume, playing: playing)
    }

    /// Stops and forgets the pipeline and what it said; the phase forgets it with the next event.
    private func dropPipeline() {
        pipeline?.stop()
        pipeline = nil
        generation += 1
        lastPosition = nil
        missingPlugin = nil
    }

    /// Drops the pipeline and the file.
    private func dropFile() {
        dropPipeline()
        path = nil
        opened = nil
        currentFrame = nil
        framesDeliveredForFile = 0
    }
}

extension PlaybackPhase.Level {
    init(_ state: GstState) {
        switch state {
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .null
        }
    }

    var gstState: GstState {
        switch self {
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }
}

// FetchPlayer: plays one video file through a GStreamer `playbin`, with no GTK.
//
//     Player                 the main-actor object the UI drives and observes
//     ├── PlayerState        idle / loading / paused / playing / ended / failed, notified on change
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
// pending main-loop callback. The player only turns messages into state in `handle(_:)`; the
// visible state is derived from that in one function, `refresh()`, and observers hear only
// real changes.
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
    public private(set) var state: PlayerState = .idle
    /// Seconds, once the file is prerolled and GStreamer knows it.
    public private(set) var duration: Double?
    /// The file open now.
    public private(set) var path: String?
    /// The newest frame delivered, kept for a view that appears later.
    public private(set) var currentFrame: VideoFrame?
    /// Frames delivered to the main thread since the player was made (for tests and statistics).
    public private(set) var framesDelivered = 0
    /// Frames delivered since the current file was opened.
    private(set) var framesDeliveredForFile = 0
    /// Whether a seek is still being carried out.
    public var isSeeking: Bool { seekTarget != nil || (pendingSeek != nil && prerolled) }
    /// Called on the main thread with every new frame (frames nobody saw in time are dropped).
    public var onFrame: (@MainActor (VideoFrame) -> Void)?

    /// Linear volume, 0…1.
    public var volume: Double = 1 {
        didSet {
            volume = min(1, max(0, volume.isNaN ? 1 : volume))
            guard volume != oldValue else { return }
            if let pipeline { GStreamer.setProperty(pipeline.playbin, "volume", .double(volume)) }
            notify(.volume(volume, muted: isMuted))
        }
    }

    /// The file's audio tracks, in playbin's order: each one's language code when the file
    /// names it ("en", "fra"). Known once the first frame is ready.
    public internal(set) var audioTracks: [String?] = []
    /// The audio track playing, an index into `audioTracks`; nil without tracks.
    public internal(set) var audioTrack: Int?

    /// The video's subtitle tracks, the file's own and a subtitle file's (`addSubtitle(file:)`,
    /// or one named like the video beside it). Known once the first frame is ready.
    public internal(set) var subtitleTracks: [SubtitleTrack] = []
    /// The subtitle track shown, an index into `subtitleTracks`; nil when subtitles are off.
    public internal(set) var subtitleTrack: Int?
    /// Why the last subtitle file given could not be shown, if it could not (the video plays on).
    public internal(set) var subtitleProblem: PlayerError?

    /// The speed range `rate` keeps to (half to twice the normal speed).
    public static let rates: ClosedRange<Double> = 0.5...2

    /// Playback speed: 1 normal, 2 twice as fast; within `rates`. The sound keeps its pitch.
    /// Kept across files; applied with a seek to where the video is.
    public var rate: Double = 1 {
        didSet {
            rate = min(Self.rates.upperBound, max(Self.rates.lowerBound, rate.isFinite ? rate : 1))
            guard rate != oldValue else { return }
            applyRate()
            notify(.rate(rate))
        }
    }

    public var isMuted = false {
        didSet {
            guard isMuted != oldValue else { return }
            if let pipeline { GStreamer.setProperty(pipeline.playbin, "mute", .bool(isMuted)) }
            notify(.volume(volume, muted: isMuted))
        }
    }

    /// The playback position in seconds; while a seek runs, the position asked for.
    ///
    /// Poll it (e.g. from a tick callback); it is not notified.
    public var position: Double? {
        guard let pipeline, prerolled, failure == nil else { return nil }
        if let pendingSeek { return pendingSeek.seconds }
        if let seekTarget { return seekTarget }
        if ended, let duration { return duration }
        // During a flush the query can fail for a moment: keep the last known position then.
        if let seconds = GStreamer.position(of: pipeline.playbin) { lastPosition = seconds }
        return lastPosition
    }

    private let audio: AudioOutput
    /// The largest frame wanted (`limitFrameSize`), kept across files.
    private var frameLimit: (Int, Int)?
    private(set) var pipeline: Pipeline?
    /// What was opened, to build the pipeline again (a subtitle file added).
    var opened: (uri: String, source: ByteSource?)?
    /// The subtitle file given to playbin as its `suburi`, if any.
    var subtitleFile: String?
    /// The subtitle track to show once the tracks are known; nil keeps playbin's choice.
    var wantedSubtitle: SubtitleChoice?
    /// Counts opened files, so messages and frames of a closed pipeline are ignored.
    private(set) var generation = 0
    private(set) var target = GST_STATE_NULL
    private var current = GST_STATE_NULL
    /// The first frame is ready: PAUSED reached and the preroll's ASYNC_DONE seen.
    private(set) var prerolled = false
    /// The ASYNC_DONE of the preroll (posted after its STATE_CHANGED) has not come yet.
    private var awaitingPrerollDone = true
    private var lastPosition: Double?
    private(set) var ended = false
    private(set) var failure: PlayerError?
    private var missingPlugin: String?
    /// A seek waiting for the preroll or for the seek in flight to finish.
    var pendingSeek: (seconds: Double, accurate: Bool)?
    /// The target of the seek in flight.
    private(set) var seekTarget: Double?
    /// The pipeline was built again while it played: it plays once the seek back is done.
    private var playAfterSeek = false
    /// An audio track chosen while a seek waited or ran (see `selectAudioTrack`).
    var pendingAudioTrack: Int?
    /// A subtitle track (nil: none) chosen while a seek waited or ran (see `selectSubtitleTrack`).
    var pendingSubtitle: Int??
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

    func notify(_ change: Change) {
        for id in observers.keys.sorted() { observers[id]?(change) }
    }

    // MARK: Commands

    /// Opens a local file and prepares its first frame; any file open before is closed.
    public func open(path: String) {
        reset()
        self.path = path
        guard GStreamer.fileExists(path) else { return fail(.fileNotFound(path: path)) }
        guard let uri = GStreamer.uri(forPath: path) else {
            return fail(.other(String(format: tr("“%1$@” is not a valid file name."), path)))
        }
        opened = (uri, nil)
        // A subtitle file named like the video was put there to be shown.
        subtitleFile = SubtitleTrack.file(beside: path)
        if subtitleFile != nil { wantedSubtitle = .external }
        load(uri: uri, feed: nil)
    }

    /// Opens a video that may still be arriving (`source`): it plays as far as its bytes are
    /// there and waits for the rest; `title` names it in messages.
    public func open(source: ByteSource, title: String) {
        reset()
        path = title
        opened = ("appsrc://", source)
        load(uri: "appsrc://", feed: StreamFeed(source: source))
    }

    /// A video that is still arriving waits for bytes that are not on disk yet (the window shows a
    /// spinner; playback goes on by itself once they come).
    public var isBuffering: Bool { pipeline?.feed?.isWaiting ?? false }

    /// Builds the pipeline for `uri` (with the subtitle file, if any) and prepares its first frame.
    private func load(uri: String, feed: StreamFeed?) {
        let generation = self.generation
        // Two frames may wait for the main loop: one that was busy a little longer than a frame
        // still shows every frame, a little late (the view paces them, one per paint).
        let relay = OrderedRelay<VideoFrame>(depth: 2) { [weak self] frame in
            self?.deliver(frame, generation: generation)
        }
        let subtitles = subtitleFile.flatMap(GStreamer.uri(forPath:))
        guard let pipeline = Pipeline(uri: uri, subtitles: subtitles, audio: audio, frames: FrameOutput(relay: relay),
                                      feed: feed) else {
            return fail(.missingCodec("playbin, videoconvert, videoscale or appsink"))
        }
        self.pipeline = pipeline
        if let frameLimit {
            VideoSink.setCaps(VideoSink.caps(maxWidth: frameLimit.0, maxHeight: frameLimit.1), on: pipeline.appsink)
        }
        GStreamer.setProperty(pipeline.playbin, "volume", .double(volume))
        GStreamer.setProperty(pipeline.playbin, "mute", .bool(isMuted))
        // A new pipeline plays at speed 1 until a seek says otherwise.
        if rate != 1 { pendingSeek = (0, true) }
        pipeline.watchBus(BusTarget(player: self, generation: generation))
        request(GST_STATE_PAUSED)
        watchPreroll(generation: generation)
        refresh()
    }

    /// Checks every `prerollCheckInterval` until the first frame is ready that the preroll can
    /// still finish: once every streaming thread has stopped (twice in a row, so a thread
    /// handing over to the next is not taken for it), the file fails as damaged instead of
    /// loading forever (see `Pipeline.streamingStopped`).
    private func watchPreroll(generation: Int) {
        var stoppedChecks = 0
        MainContext.every(milliseconds: Self.prerollCheckInterval) { [weak self] in
            guard let self, generation == self.generation, let pipeline = self.pipeline, !self.prerolled,
                  self.failure == nil else { return false }
            stoppedChecks = pipeline.streamingStopped ? stoppedChecks + 1 : 0
            guard stoppedChecks >= 2 else { return true }
            self.fail(.corrupt(detail: "every streaming thread stopped before the first frame"))
            return false
        }
    }

    /// Milliseconds between two looks at a preroll's streaming threads.
    static let prerollCheckInterval: UInt32 = 250

    /// Starts or resumes playback; after the end, starts again from the beginning.
    public func play() {
        guard pipeline != nil, failure == nil else { return }
        playAfterSeek = false
        if ended {
            ended = false
            pendingSeek = nil
            startSeek(to: 0, accurate: true)
        }
        request(GST_STATE_PLAYING)
        refresh()
    }

    public func pause() {
        guard pipeline != nil, failure == nil else { return }
        playAfterSeek = false
        request(GST_STATE_PAUSED)
        refresh()
    }

    /// Moves to `seconds`: `accurate: false` jumps to the nearest key frame (fast, for dragging),
    /// `accurate: true` to the exact time (on release).
    ///
    /// A seek asked for before the first frame is ready, or while another seek runs, waits and
    /// is replaced by any newer one.
    public func seek(to seconds: Double, accurate: Bool) {
        guard pipeline != nil, failure == nil, seconds.isFinite else { return }
        var seconds = max(0, seconds)
        if let duration { seconds = min(seconds, duration) }
        if !prerolled || seekTarget != nil {
            pendingSeek = (seconds, accurate)
            return
        }
        startSeek(to: seconds, accurate: accurate)
        refresh()
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
        reset()
        refresh()
    }

    // MARK: Bus messages

    /// Turns one bus message of the current pipeline into state. Runs on the main context.
    func handle(_ message: UnsafeMutablePointer<GstMessage>, generation: Int) {
        guard generation == self.generation, let pipeline, failure == nil else { return }
        switch message.pointee.type {
        case GST_MESSAGE_ERROR:
            // A demuxer that read into a part not downloaded may take the end for damage.
            fail(pipeline.feed?.failure ?? PlayerError.from(errorMessage: message, missingPlugin: missingPlugin, path: path))
        case GST_MESSAGE_ELEMENT:
            if let description = PlayerError.missingPluginDescription(message) {
                missingPlugin = description
            }
        case GST_MESSAGE_EOS:
            // The stream ended where the bytes did: played up to a part not downloaded.
            if let failure = pipeline.feed?.failure { return fail(failure) }
            ended = true
            refresh()
        case GST_MESSAGE_STATE_CHANGED:
            guard UnsafeMutableRawPointer(message.pointee.src) == UnsafeMutableRawPointer(pipeline.playbin)
            else { return }
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            current = new
            completePreroll()
            refresh()
        case GST_MESSAGE_DURATION_CHANGED:
            updateDuration()
        case GST_MESSAGE_ASYNC_DONE:
            // A preroll or a seek that ended at a part not downloaded: the sinks prerolled on
            // the end of the stream, and the EOS message would come only once playing.
            if let failure = pipeline.feed?.failure, gst_app_sink_is_eos(pipeline.appsink) != 0 {
                return fail(failure)
            }
            if awaitingPrerollDone {
                awaitingPrerollDone = false
                completePreroll()
            } else {
                seekTarget = nil // a seek (or a pause) finished
                if duration == nil { updateDuration() }
                startPendingSeek()
                switchPendingAudioTrack()
                switchPendingSubtitle()
                if playAfterSeek, seekTarget == nil {
                    playAfterSeek = false
                    pipeline.request(GST_STATE_PLAYING)
                }
            }
            refresh()
        default:
            break
        }
    }

    // MARK: Internals

    func request(_ state: GstState) {
        target = state
        pipeline?.request(state)
    }

    /// Once both the PAUSED state and the preroll's ASYNC_DONE are in: duration, pending seek.
    private func completePreroll() {
        guard !prerolled, !awaitingPrerollDone,
              current.rawValue >= GST_STATE_PAUSED.rawValue else { return }
        prerolled = true
        updateDuration()
        readAudioTracks()
        readSubtitleTracks()
        startPendingSeek()
    }

    private func startPendingSeek() {
        guard let seek = pendingSeek else { return }
        pendingSeek = nil
        startSeek(to: seek.seconds, accurate: seek.accurate)
    }

    func startSeek(to seconds: Double, accurate: Bool) {
        guard let pipeline else { return }
        ended = false
        // Frames still on their way are from before the seek; the seek's own come after.
        pipeline.frames.discardWaiting()
        if GStreamer.seek(pipeline.playbin, to: seconds, accurate: accurate, rate: rate) {
            seekTarget = seconds
            lastPosition = seconds
        }
    }

    /// A new speed takes effect with a seek to where the video is; one in flight or waiting
    /// for the preroll carries it instead (every seek sets the speed).
    private func applyRate() {
        guard pipeline != nil, failure == nil, !ended else { return } // play() after the end seeks
        if let seekTarget, pendingSeek == nil { pendingSeek = (seekTarget, true) }
        if !prerolled, pendingSeek == nil { pendingSeek = (lastPosition ?? 0, true) }
        guard prerolled, seekTarget == nil, pendingSeek == nil else { return }
        startSeek(to: position ?? 0, accurate: true)
        refresh()
    }

    /// Seconds the pipeline has played (running time: its clock, pauses left out), for tests
    /// that compare it with the position.
    var runningTime: Double? { pipeline.flatMap { GStreamer.runningTime(of: $0.playbin) } }

    private func updateDuration() {
        // Whole milliseconds: a length refined by a fraction of one (1.0 then 1.000333 s) is no
        // change anyone sees.
        guard let pipeline, let exact = GStreamer.duration(of: pipeline.playbin) else { return }
        let seconds = (exact * 1000).rounded() / 1000
        guard seconds != duration else { return }
        duration = seconds
        notify(.duration(seconds))
    }

    private func fail(_ error: PlayerError) {
        failure = error
        pendingSeek = nil
        seekTarget = nil
        pipeline?.stop()
        refresh()
    }

    private func deliver(_ frame: VideoFrame, generation: Int) {
        guard generation == self.generation, pipeline != nil, failure == nil else { return }
        currentFrame = frame
        framesDelivered += 1
        framesDeliveredForFile += 1
        onFrame?(frame)
    }

    /// Builds the pipeline again where the video is (a subtitle file was added: playbin takes one
    /// only when it opens a file), keeping the picture shown and whether it plays.
    func reload() {
        guard let opened, failure == nil else { return }
        let resumeAt = ended ? 0 : (position ?? pendingSeek?.seconds ?? 0)
        let playing = target == GST_STATE_PLAYING && !ended
        dropPipeline()
        load(uri: opened.uri, feed: opened.source.map(StreamFeed.init))
        pendingSeek = (resumeAt, true)
        if playing {
            // Shown as loading until it plays again from where it was, not from the start.
            target = GST_STATE_PLAYING
            playAfterSeek = true
        }
        refresh()
    }

    /// Stops and forgets the pipeline and what GStreamer said about it, not what the file is.
    private func dropPipeline() {
        pipeline?.stop()
        pipeline = nil
        generation += 1
        target = GST_STATE_NULL
        current = GST_STATE_NULL
        prerolled = false
        awaitingPrerollDone = true
        lastPosition = nil
        ended = false
        failure = nil
        missingPlugin = nil
        pendingSeek = nil
        seekTarget = nil
        playAfterSeek = false
        pendingAudioTrack = nil
        pendingSubtitle = nil
    }

    /// Drops the pipeline and everything known about the file; does not notify.
    private func reset() {
        dropPipeline()
        path = nil
        opened = nil
        subtitleFile = nil
        wantedSubtitle = nil
        currentFrame = nil
        framesDeliveredForFile = 0
        if !subtitleTracks.isEmpty || subtitleProblem != nil {
            subtitleTracks = []
            subtitleTrack = nil
            subtitleProblem = nil
            notify(.subtitles)
        }
        if !audioTracks.isEmpty {
            audioTracks = []
            audioTrack = nil
            notify(.audioTracks)
        }
        if duration != nil {
            duration = nil
            notify(.duration(nil))
        }
    }

    /// Derives the visible state from what GStreamer reported; notifies when it changes.
    private func refresh() {
        let next: PlayerState
        if let failure {
            next = .failed(failure)
        } else if pipeline == nil {
            next = .idle
        } else if ended {
            next = .ended
        } else if !prerolled {
            next = .loading
        } else if current == target {
            next = target == GST_STATE_PLAYING ? .playing : .paused
        } else {
            next = state // between two states: keep showing the last confirmed one
        }
        guard next != state else { return }
        state = next
        notify(.state(next))
    }
}

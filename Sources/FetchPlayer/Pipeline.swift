import CGLib
import CGStreamer
import GLibSupport
import ThreadKit

/// One `playbin` for one opened file, with its sinks and its bus watch; stopped and freed when
/// released (by `Player.close()` or when the player goes away).
///
/// Its state changes run on its player's worker (`states`), never on the main thread:
/// `set_state` can wait for the streaming threads (going to NULL joins them, and one may be
/// waiting for bytes of a video still downloading). States are reported on the bus as before.
final class Pipeline {
    let playbin: UnsafeMutablePointer<GstElement>
    /// The video appsink (owned by the playbin), for its statistics.
    let appsink: UnsafeMutablePointer<GstAppSink>
    let frames: FrameOutput
    /// The bytes of a stream that is still arriving, for `appsrc://`.
    let feed: StreamFeed?
    /// The player's one worker for state changes, in the order asked: a file opened after
    /// another was closed starts only once the old pipeline is down (its file, the sound device
    /// free again).
    private let states: Worker
    private var watchingBus = false
    private var stopped = false

    /// A playbin for `uri` sending frames to `frames` and sound to `audio`.
    ///
    /// `subtitles` is the URI of a subtitle file: playbin draws its text into the frames (with
    /// `textoverlay`) like the file's own subtitle streams, before the frames reach the sink.
    ///
    /// - Throws: `.missingCodec` when a core plug-in (playbin, videoconvert, appsink…) is
    ///   missing; `.other` when GStreamer refused a part of the pipeline (logged).
    init(uri: String, subtitles: String? = nil, audio: AudioOutput, frames: FrameOutput, feed: StreamFeed? = nil,
         states: Worker) throws(PlayerError) {
        self.states = states
        let missing = PlayerError.missingCodec("playbin, videoconvert, videoscale or appsink")
        guard let playbin = GStreamer.make("playbin", name: "fetchplay-player") else { throw missing }
        _ = gst_object_ref_sink(playbin)
        let video: (bin: UnsafeMutablePointer<GstElement>, appsink: UnsafeMutablePointer<GstAppSink>)?
        let audioSink: UnsafeMutablePointer<GstElement>?
        do {
            video = try VideoSink.make(output: frames)
            audioSink = video == nil ? nil : try audio.makeSink()
        } catch {
            gst_object_unref(playbin)
            throw error.playerError
        }
        guard let video, let audioSink else {
            if let video { gst_object_unref(gst_object_ref_sink(video.bin)) } // still floating: sink it to free it
            gst_object_unref(playbin)
            throw missing
        }
        self.playbin = playbin
        self.appsink = video.appsink
        self.frames = frames
        self.feed = feed
        // Ours until playbin takes its own references, freed whether it took them or not.
        _ = gst_object_ref_sink(video.bin)
        _ = gst_object_ref_sink(audioSink)
        defer {
            gst_object_unref(video.bin)
            gst_object_unref(audioSink)
        }
        do {
            try configure(uri: uri, subtitles: subtitles, video: video.bin, audio: audioSink)
        } catch {
            throw error.playerError // deinit stops and frees the playbin
        }
    }

    /// Sets the playbin's source, subtitles, sinks and filter, and follows an appsrc feed.
    private func configure(uri: String, subtitles: String?, video: UnsafeMutablePointer<GstElement>,
                           audio audioSink: UnsafeMutablePointer<GstElement>) throws(GStreamerError) {
        try GStreamer.setProperty(playbin, "uri", .string(uri))
        if let subtitles { try GStreamer.setProperty(playbin, "suburi", .string(subtitles)) }
        if let feed {
            // playbin makes the appsrc during its first state change (on whichever thread
            // changes it): configure it there.
            let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, source, data in
                let feed = CallbackBox<StreamFeed>.from(data).body
                if let source { feed.attach(source.assumingMemoryBound(to: GstElement.self)) }
            }
            playbin.connect("source-setup", box: CallbackBox(feed), handler: unsafeBitCast(handler, to: GCallback.self))
            // The feed answers type-finding's probes differently from the demuxer's reads: it
            // learns when the type is found from decodebin's typefind element.
            let added: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
                                       UnsafeMutableRawPointer?) -> Void = { _, _, element, data in
                guard let element, let name = fetchplay_element_factory_name(element.assumingMemoryBound(to: GstElement.self)) else { return }
                guard String(cString: name) == "typefind" else { return }
                let feed = CallbackBox<StreamFeed>.from(data).body
                let found: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?,
                                           UnsafeMutableRawPointer?) -> Void = { _, _, _, data in
                    CallbackBox<StreamFeed>.from(data).body.typeFound()
                }
                element.assumingMemoryBound(to: GstElement.self)
                    .connect("have-type", box: CallbackBox(feed), handler: unsafeBitCast(found, to: GCallback.self))
            }
            playbin.connect("deep-element-added", box: CallbackBox(feed), handler: unsafeBitCast(added, to: GCallback.self))
        }
        try GStreamer.setProperty(playbin, "video-sink", .object(video.rawObject))
        try GStreamer.setProperty(playbin, "audio-sink", .object(audioSink.rawObject))
        // Faster or slower playback keeps the sound's pitch: scaletempo stretches the sound in
        // time (at speed 1 it passes the sound through). Without it the sink would play the
        // samples faster or slower, an octave up at twice the speed.
        if let stretch = GStreamer.make("scaletempo") {
            _ = gst_object_ref_sink(stretch)
            defer { gst_object_unref(stretch) }
            try GStreamer.setProperty(playbin, "audio-filter", .object(stretch.rawObject))
        }
    }

    /// Delivers every bus message of the playbin to `target` on the main context.
    func watchBus(_ target: BusTarget) {
        guard !watchingBus, let bus = gst_element_get_bus(playbin) else { return }
        defer { gst_object_unref(bus) }
        gst_bus_add_watch_full(bus, G_PRIORITY_DEFAULT, { _, message, data in
            let target = Unmanaged<BusTarget>.fromOpaque(data!).takeUnretainedValue()
            nonisolated(unsafe) let message = message!
            MainActor.assumeIsolated { target.receive(message) }
            return 1 // G_SOURCE_CONTINUE
        }, Unmanaged.passRetained(target).toOpaque()) { data in
            Unmanaged<BusTarget>.fromOpaque(data!).release()
        }
        watchingBus = true
    }

    /// Whether every streaming thread inside the playbin has stopped (and there was one).
    ///
    /// Before the first frame that means it never comes: decodebin drops the error of a demuxer
    /// that fails while decodebin is still starting it (its error filter, GStreamer 1.22's
    /// gstdecodebin2.c), and then nothing is left to post an error or finish the preroll. A file
    /// cut short before its first frames does this whenever the demuxer's thread wins the race.
    var streamingStopped: Bool {
        var running: Int32 = 0, all: Int32 = 0
        fetchplay_bin_count_tasks(playbin.as(GstBin.self), &running, &all)
        return all > 0 && running == 0
    }

    /// Asks for a state; completion is reported on the bus.
    func request(_ state: GstState) {
        guard !stopped else { return }
        change(to: state)
    }

    /// `state` on the worker, with a reference of the worker's own to the playbin. A worker that
    /// stopped (the process's shutdown joined it) takes nothing: a NULL then happens here, on
    /// the quitting thread, so that no playbin is freed while it still streams.
    private func change(to state: GstState) {
        let playbin = ElementReference(playbin)
        let accepted = states.submit {
            gst_element_set_state(playbin.element, state)
            playbin.release()
        }
        guard !accepted else { return }
        if state == GST_STATE_NULL { gst_element_set_state(playbin.element, GST_STATE_NULL) }
        playbin.release()
    }

    /// Removes the bus watch and stops streaming (state NULL, on the state queue, which frees the
    /// playbin there if nothing else holds it); idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        feed?.stop()
        if watchingBus, let bus = gst_element_get_bus(playbin) {
            gst_bus_remove_watch(bus)
            gst_object_unref(bus)
            watchingBus = false
        }
        change(to: GST_STATE_NULL)
    }

    deinit {
        stop()
        gst_object_unref(playbin)
    }
}

/// A reference of its own to an element, for work on another thread; `release()` it once.
private struct ElementReference: @unchecked Sendable {
    let element: UnsafeMutablePointer<GstElement>

    init(_ element: UnsafeMutablePointer<GstElement>) {
        self.element = element
        _ = gst_object_ref(element)
    }

    func release() { gst_object_unref(element) }
}

/// The bus watch's user data: routes messages to the player that opened this pipeline, without
/// keeping the player alive.
@MainActor
final class BusTarget {
    private weak var player: Player?
    private let generation: Int

    init(player: Player, generation: Int) {
        self.player = player
        self.generation = generation
    }

    func receive(_ message: UnsafeMutablePointer<GstMessage>) {
        player?.handle(message, generation: generation)
    }
}

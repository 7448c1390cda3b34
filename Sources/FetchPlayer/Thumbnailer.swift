import CGLib
import CGStreamer
import GLibSupport
import Localization
import ThreadKit

/// One frame or the duration of a video file, without playing it (for the library view).
///
/// A `Thumbnailer` owns its workers (`threads` of them): `submit` runs a job there with a
/// `Thumbnailer.Probes`, whose calls block that worker for at most their `timeout`. When the
/// thumbnailer goes (or the process's shutdown stops it, in its `.media` stage), the jobs not
/// started are dropped and the probes running are cut short: they throw `.other` at once
/// instead of waiting out their timeout, so the workers end promptly.
///
/// The static calls do the same on the caller's thread, uncancellable; never call them on the
/// main thread.
public final class Thumbnailer: Sendable {
    private let worker: Worker
    private let probes = Probes()

    /// - Parameter shutdown: joins the workers once the thumbnailer is gone; nil: the deinit
    ///   joins them itself (quickly: their probes are cut short).
    public init(threads: Int = 1, in shutdown: Shutdown? = .process) {
        worker = Worker(name: "fetchplay thumbnails", threads: threads, stage: .media, in: shutdown)
        worker.whenStopping { [probes] in probes.cancel() }
    }

    deinit { worker.stop() }

    /// Runs `job` on a worker unless the thumbnailer stops before it starts; false when it
    /// stopped already.
    @discardableResult
    public func submit(_ job: @escaping @Sendable (Probes) -> Void) -> Bool {
        worker.submit(.skippable) { [probes] in job(probes) }
    }

    /// A frame at `fraction` of the duration on a worker; `completion` runs on the main thread
    /// (never, once the thumbnailer stopped: nobody will see it).
    public func snapshot(path: String, at fraction: Double = 0.1, timeout: Double = 5,
                         completion: @escaping @Sendable @MainActor (Result<VideoFrame, PlayerError>) -> Void) {
        submit { probes in
            let result = Result { () throws(PlayerError) in
                try probes.snapshot(path: path, at: fraction, timeout: timeout)
            }
            guard !probes.isCancelled else { return }
            MainContext.post { completion(result) }
        }
    }

    /// Threads of the thumbnailer's workers still running (tests).
    public var runningThreads: Int { worker.runningThreads }

    /// A BGRA frame at `fraction` of the duration (10% by default), at the video's own size.
    public static func snapshot(path: String, at fraction: Double = 0.1,
                                timeout: Double = 5) throws(PlayerError) -> VideoFrame {
        try Probes().snapshot(path: path, at: fraction, timeout: timeout)
    }

    /// The duration of a media file in seconds, from a paused pipeline.
    public static func probeDuration(path: String, timeout: Double = 5) throws(PlayerError) -> Double {
        try Probes().probeDuration(path: path, timeout: timeout)
    }

    /// What a thumbnailer's job decodes with: each call builds a paused playbin, waits for it
    /// (at most `timeout` seconds) and frees it; `cancel()` (the thumbnailer stopping) wakes the
    /// ones waiting and refuses new ones.
    public final class Probes: Sendable {
        /// The waits of the probes now.
        private let state = Locked<(cancelled: Bool, waits: [BusWaiter])>((false, []))

        init() {}

        public var isCancelled: Bool { state.withLock { $0.cancelled } }

        /// A BGRA frame at `fraction` of the duration (10% by default), at the video's own size.
        public func snapshot(path: String, at fraction: Double = 0.1, timeout: Double = 5) throws(PlayerError) -> VideoFrame {
            let probe = try Probe(path: path, withFrames: true)
            let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
            try watching(probe) { bus throws(PlayerError) in try probe.preroll(until: deadline, bus: bus) }
            if fraction > 0, let duration = GStreamer.duration(of: probe.playbin), duration > 0 {
                GStreamer.seek(probe.playbin, to: duration * min(fraction, 1), accurate: false)
                try watching(probe) { bus throws(PlayerError) in try probe.preroll(until: deadline, bus: bus) }
            }
            guard let appsink = probe.appsink,
                  let sample = gst_app_sink_try_pull_preroll(appsink, BusWaiter.nanoseconds(until: deadline))
            else { throw .timedOut }
            defer { gst_sample_unref(sample) }
            guard let frame = VideoFrame.wrapping(sample) else { throw .corrupt(detail: "unreadable frame") }
            return frame
        }

        /// The duration of a media file in seconds, from a paused pipeline.
        public func probeDuration(path: String, timeout: Double = 5) throws(PlayerError) -> Double {
            let probe = try Probe(path: path, withFrames: false)
            let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
            try watching(probe) { bus throws(PlayerError) in try probe.preroll(until: deadline, bus: bus) }
            guard let duration = GStreamer.duration(of: probe.playbin) else {
                throw .other(tr("the file does not say how long it is"))
            }
            return duration
        }

        /// Runs `body` (a wait on `probe`'s bus) where `cancel()` can cut it short.
        private func watching(_ probe: Probe, _ body: (BusWaiter) throws(PlayerError) -> Void) throws(PlayerError) {
            let bus = try BusWaiter(probe.playbin)
            let cancelled = state.withLock { state in
                if !state.cancelled { state.waits.append(bus) }
                return state.cancelled
            }
            defer { state.withLock { $0.waits.removeAll { $0 === bus } } }
            if cancelled { throw Self.stopped }
            try body(bus)
            if isCancelled { throw Self.stopped }
        }

        /// What a probe cut short throws (nobody sees it: its thumbnailer is gone).
        static let stopped = PlayerError.other("the thumbnailer stopped")

        /// Wakes every probe waiting and refuses new ones.
        func cancel() {
            state.withLock { state in
                state.cancelled = true
                state.waits.forEach { $0.cancel() }
            }
        }
    }
}

/// A paused playbin that never plays: no audio, frames kept for pulling.
private final class Probe {
    let playbin: UnsafeMutablePointer<GstElement>
    private(set) var appsink: UnsafeMutablePointer<GstAppSink>?
    private let path: String
    private var missingPlugin: String?

    init(path: String, withFrames: Bool) throws(PlayerError) {
        GStreamer.initialize()
        guard GStreamer.fileExists(path) else { throw .fileNotFound(path: path) }
        guard let uri = String.fileURI(forPath: path) else { throw .other(String(format: tr("“%1$@” is not a valid file name."), path)) }
        guard let playbin = GStreamer.make("playbin"),
              let audioSink = GStreamer.make("fakesink") else { throw .missingCodec("playbin") }
        _ = gst_object_ref_sink(playbin)
        self.playbin = playbin
        self.path = path
        // deinit frees the playbin on every throw from here on; a sink it did not take goes
        // with the reference sunk here.
        _ = gst_object_ref_sink(audioSink)
        defer { gst_object_unref(audioSink) }
        try GStreamerError.ending { () throws(GStreamerError) in
            try GStreamer.setProperty(playbin, "uri", .string(uri))
            try GStreamer.setProperty(playbin, "audio-sink", .object(audioSink.rawObject))
        }
        if withFrames {
            guard let video = try GStreamerError.ending({ () throws(GStreamerError) in try VideoSink.make(output: nil, sync: false) }) else {
                throw .missingCodec("videoconvert")
            }
            _ = gst_object_ref_sink(video.bin)
            defer { gst_object_unref(video.bin) }
            appsink = video.appsink
            try GStreamerError.ending { () throws(GStreamerError) in
                try GStreamer.setProperty(playbin, "video-sink", .object(video.bin.rawObject))
                try GStreamer.setProperty(playbin, "flags", .int(Self.playVideoOnly))
            }
        } else if let videoSink = GStreamer.make("fakesink") {
            _ = gst_object_ref_sink(videoSink)
            defer { gst_object_unref(videoSink) }
            try GStreamerError.ending { () throws(GStreamerError) in try GStreamer.setProperty(playbin, "video-sink", .object(videoSink.rawObject)) }
        }
    }

    /// `GST_PLAY_FLAG_VIDEO`: decode video only (the flags enum is private to playbin).
    private static let playVideoOnly: Int64 = 0x1

    deinit {
        gst_element_set_state(playbin, GST_STATE_NULL)
        gst_object_unref(playbin)
    }

    /// Goes to PAUSED (or finishes a seek) and waits for ASYNC_DONE, an error, or the deadline.
    func preroll(until deadline: ContinuousClock.Instant, bus: BusWaiter) throws(PlayerError) {
        if gst_element_set_state(playbin, GST_STATE_PAUSED) == GST_STATE_CHANGE_SUCCESS { return }
        let types = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_ASYNC_DONE.rawValue | GST_MESSAGE_ELEMENT.rawValue)
        while true {
            switch bus.next(types, until: deadline) {
            case .timedOut:
                throw .timedOut
            case .cancelled:
                return // the thumbnailer stopped (`Probes.watching` throws)
            case .message(let message) where message.type == GST_MESSAGE_ASYNC_DONE:
                return
            case .message(let message) where message.type == GST_MESSAGE_ERROR:
                throw PlayerError.from(errorMessage: message.pointer, missingPlugin: missingPlugin, path: path)
            case .message(let message):
                if let description = PlayerError.missingPluginDescription(message.pointer) { missingPlugin = description }
            }
        }
    }
}

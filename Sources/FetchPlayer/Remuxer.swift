import CGLib
import CGStreamer
import FetchCore
import Foundation
import ThreadKit

/// Rewrites media streams into one MP4 without re-encoding, as their bytes arrive.
///
/// Each input is `appsrc ! parsebin`; the video and audio streams parsebin finds go through a
/// queue into one `mp4mux`, anything else is dropped. Used once per HLS download: the segments
/// are appended in order while later ones still download, so the remux is done about when the
/// last segment is, instead of joining every segment first and reading them all again after.
/// The index (`moov`) goes at the end: writing it first (`faststart`) costs a second copy of
/// the whole file, and a local file seeks as well either way.
///
/// `append` blocks while the remux is behind (each input holds `inputLimit` bytes at most), so
/// a resume that feeds an hour of segments from disk never holds them in memory. Safe from any
/// thread; every call but `cancel` blocks, so never call one on the main thread.
public final class Remuxer: PresentationRemuxStream, @unchecked Sendable {
    /// Which streams of an input go into the file: the engine's own description of a
    /// presentation's tracks.
    public typealias Input = PresentationRemuxPlan.Input

    /// GStreamer's remux of a presentation, as a presentation's download takes it
    /// (`PresentationSaving.remux`): the window and the command line use this one.
    public static let presentations: PresentationRemux = { plan in try Remuxer(output: plan.output, inputs: plan.inputs) }

    /// Seconds `finish` waits for the last bytes to be written (a minute of 1080p takes well
    /// under one).
    static let timeLimit = 600
    /// Bytes each input's appsrc holds before `append` waits.
    static let inputLimit = 8 << 20
    /// Seconds one stream of an input may run ahead of another of the same input (a
    /// fragment's video before its audio): what each of their queues holds at most.
    static let interleaveLimit = 30
    /// Nanoseconds of data each of mp4mux's inputs may hold. mp4mux is a `GstAggregator`, whose
    /// inputs hold one buffer each by default: every frame then crossed threads twice, each
    /// queue's thread waiting for the muxer and the muxer for the next frame (37,000 `futex`
    /// calls for a minute of 1080p). Holding a second, the threads run in stretches: the same
    /// fragmented-MP4 remux by `gst-launch-1.0` took 75 ms instead of 133.
    static let muxLatency: Int64 = 1_000_000_000

    /// The elements a remux loads (MPEG-TS, fragmented MP4 and packed audio in, MP4 out).
    static let features = ["appsrc", "parsebin", "typefind", "tsdemux", "qtdemux", "h264parse", "h265parse",
                           "aacparse", "mpegaudioparse", "id3demux", "mp4mux", "queue", "filesink"]

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sources: [UnsafeMutablePointer<GstAppSrc>]
    private let linker: StreamLinker
    private let outcome = Locked<Outcome>(Outcome())
    /// The watcher has stopped the pipeline: the output is as far as it will get.
    private let done = Locked(false)
    /// Waits on the bus for the end; joined by the deinit (which wakes it first).
    private var watcher: Worker?
    /// The watcher's wait on the bus, which `cancel` cuts short.
    private let bus: BusWaiter

    private struct Outcome {
        var error: PlayerError?
        /// The file is whole (EOS reached the sink).
        var written = false
        /// No more bytes are taken: written, failed or cancelled.
        var closed = false
        var ended: Set<Int> = []
    }

    /// Initialises GStreamer and loads the remux's plug-ins, so the remux that follows does not
    /// wait for them (about a tenth of a second, measured). Blocks: call it on a worker thread.
    public static func prepare() {
        GStreamer.initialize()
        for name in features {
            guard let factory = gst_element_factory_find(name) else { continue }
            // Both are final GObject types, imported as opaque pointers.
            if let loaded = gst_plugin_feature_load(factory) { gst_object_unref(UnsafeMutableRawPointer(loaded)) }
            gst_object_unref(UnsafeMutableRawPointer(factory))
        }
    }

    /// `prepare()` on a worker of its own, the first time only (the plug-ins load once per
    /// process); returns at once. The worker is the process's: its shutdown joins it in the
    /// `.media` stage, so the process never exits while it is inside GObject's type system (a
    /// refused HLS link ends before it; seen under ThreadSanitizer as GObject aborting during exit).
    public static func prepareInBackground() {
        preparation.withLock { worker in
            guard worker == nil else { return }
            worker = Worker.run(name: "fetchplay remux prepare", stage: .media, .skippable) { prepare() }
        }
    }

    /// The worker of `prepareInBackground`, once started; kept so that it has an owner.
    private static let preparation = Locked<Worker?>(nil)

    /// Starts a remux into `output` (created or truncated) of one input per element of `inputs`.
    public init(output: String, inputs: [Input]) throws(PlayerError) {
        GStreamer.initialize()
        guard !inputs.isEmpty, let pipeline = gst_pipeline_new("fetchplay-remux") else { throw .other("no inputs") }
        self.pipeline = pipeline
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let mux = GStreamer.make("mp4mux"), let sink = GStreamer.make("filesink") else {
            gst_object_unref(pipeline)
            throw .missingCodec("mp4mux (gstreamer1.0-plugins-good)")
        }
        linker = StreamLinker(bin: bin, mux: mux, inputs: inputs.count)
        var sources: [UnsafeMutablePointer<GstAppSrc>] = []
        var linked = true
        do throws(GStreamerError) {
            try GStreamer.add(mux, to: bin)
            try GStreamer.add(sink, to: bin)
            try GStreamer.setProperty(mux, "latency", .int(Self.muxLatency))
            try GStreamer.setProperty(sink, "location", .string(output))
            linked = gst_element_link(mux, sink) != 0
            for (index, input) in inputs.enumerated() {
                guard let source = GStreamer.make("appsrc"), let parser = GStreamer.make("parsebin") else {
                    linked = false
                    break
                }
                try GStreamer.add(source, to: bin)
                try GStreamer.add(parser, to: bin)
                try GStreamer.setProperty(source, "max-bytes", .int(Int64(Self.inputLimit)))
                // Without it `append` would queue every segment in memory instead of waiting.
                try GStreamer.setProperty(source, "block", .bool(true))
                linked = linked && gst_element_link(source, parser) != 0
                sources.append(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self))
                linker.watch(parser, input: index, takes: input)
            }
        } catch {
            gst_object_unref(pipeline)
            throw error.playerError
        }
        self.sources = sources
        do {
            bus = try BusWaiter(pipeline)
        } catch {
            gst_object_unref(pipeline)
            throw error
        }
        guard linked, sources.count == inputs.count else {
            gst_object_unref(pipeline)
            throw .missingCodec("appsrc, parsebin, mp4mux (gstreamer1.0-plugins-base, -good)")
        }
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
            throw .other("the remux pipeline does not start")
        }
        // The watcher holds what it reads, not the remux: the last reference never goes on it.
        let watcher = Worker(name: "fetchplay remux", stage: .media)
        nonisolated(unsafe) let watched = self.pipeline // freed by the deinit, after the watcher is joined
        watcher.submit { [outcome, done, bus] in Self.watch(watched, bus: bus, outcome: outcome, done: done) }
        // The process quitting stops the remux that still runs (its download was stopped first).
        watcher.whenStopping { [weak self] in self?.cancel() }
        self.watcher = watcher
    }

    deinit {
        cancel() // wakes the watcher
        watcher?.join()
        gst_object_unref(pipeline)
    }

    /// Appends the next `count` bytes of input `index`, which `fill` writes straight into the
    /// remux's own buffer; waits while the remux is behind.
    ///
    /// - Throws: what `fill` throws; the remux's error when it failed (then nothing more is
    ///   taken); `.other` after `cancel` or `end`.
    public func append(count: Int, to index: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        guard count > 0 else { return }
        try check(index)
        guard let buffer = gst_buffer_new_allocate(nil, gsize(count), nil) else { throw PlayerError.other("out of memory") }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0, let data = map.data else {
            gst_buffer_unref(buffer)
            throw PlayerError.other("out of memory")
        }
        do {
            try fill(UnsafeMutableRawBufferPointer(start: data, count: count))
        } catch {
            gst_buffer_unmap(buffer, &map)
            gst_buffer_unref(buffer)
            throw error
        }
        gst_buffer_unmap(buffer, &map)
        // Takes the buffer; FLUSHING once the pipeline stopped (an error, a cancel), EOS once
        // the input was ended. Any other refusal ends the remux with it as the error, so that
        // `finish` says so too.
        let flow = gst_app_src_push_buffer(sources[index], buffer)
        guard flow == GST_FLOW_OK else {
            if flow != GST_FLOW_FLUSHING, flow != GST_FLOW_EOS {
                let refused = GStreamerError.bufferRefused(flow: gst_flow_get_name(flow).map { String(cString: $0) } ?? "\(flow.rawValue)")
                refused.logged()
                // Not `closed`: the watcher still waits for the end, which `finish` or `cancel` brings.
                outcome.withLock { $0.error = $0.error ?? refused.playerError }
            }
            try check(index)
            throw PlayerError.other("the remux stopped")
        }
    }

    /// No more bytes for input `index`.
    public func end(_ index: Int) {
        let first = outcome.withLock { $0.ended.insert(index).inserted }
        if first { _ = gst_app_src_end_of_stream(sources[index]) }
    }

    /// Ends every input and waits until the file is written.
    ///
    /// - Throws: GStreamer's error, `.notAVideo` when no input had a video or audio stream,
    ///   `.timedOut` after `timeLimit` seconds, `.other` after `cancel`.
    public func finish() throws(PlayerError) {
        for index in sources.indices { end(index) }
        guard done.wait(until: { $0 }, timeout: Double(Self.timeLimit)) else {
            cancel()
            throw .timedOut
        }
        let outcome = outcome.withLock { $0 }
        if let error = outcome.error { throw error }
        guard outcome.written else { throw .other("the remux was cancelled") }
        guard linker.linked > 0 else { throw .notAVideo }
    }

    /// Stops from any thread, without waiting: the watcher takes the pipeline down, then `append`
    /// and `finish` return; the output stays as far as it got.
    public func cancel() {
        outcome.withLock { $0.closed = true }
        // Wakes the watcher, which stops the pipeline and leaves. Only the watcher takes the
        // pipeline to NULL: going to NULL flushes the bus, and a wake still in it then would be
        // dropped (the watcher waited for ever, and `finish` its whole time limit after a pause).
        bus.cancel()
    }

    private func check(_ index: Int) throws(PlayerError) {
        let outcome = outcome.withLock { $0 }
        if let error = outcome.error { throw error }
        if outcome.closed || outcome.ended.contains(index) { throw .other("the remux input is closed") }
    }

    /// Waits on the bus for the end, the first error or a cancel's wake; whichever comes, it stops
    /// the pipeline, which releases every `append` that waits.
    private static func watch(_ pipeline: UnsafeMutablePointer<GstElement>, bus: BusWaiter, outcome: Locked<Outcome>,
                              done: Locked<Bool>) {
        defer { done.withLockAndNotify { $0 = true } }
        // However it leaves (the end, an error, a wake), the pipeline stops before `done`.
        defer { gst_element_set_state(pipeline, GST_STATE_NULL) }
        guard case .message(let message) = bus.next(GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue))
        else { return }
        let error = message.type == GST_MESSAGE_ERROR ? PlayerError.from(errorMessage: message.pointer, missingPlugin: nil, path: nil) : nil
        outcome.withLock {
            $0.error = $0.error ?? error
            $0.written = error == nil
            $0.closed = true
        }
    }
}

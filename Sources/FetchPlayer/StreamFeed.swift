import CGLib
import CGStreamer
import ThreadKit

/// Feeds playbin's `appsrc` (uri `appsrc://`) from a `ByteSource` in random-access mode, so the
/// demuxer can seek anywhere in a file that is still arriving.
///
/// `need-data` and `seek-data` come on appsrc's streaming thread; a read that waits for bytes
/// blocks only that thread, in short steps so that stopping the pipeline is noticed at once.
///
/// Bytes that cannot come end the stream (a short buffer, or EOS) rather than erring at once,
/// so that what the demuxer and the queues hold still plays; the player then reads `failure`
/// and says why the video stopped there. A later buffer pushed (the demuxer probing an index in
/// a part not downloaded, then reading on from the start) clears it.
final class StreamFeed: @unchecked Sendable {
    let source: ByteSource
    private let state = Locked(State())

    struct State {
        /// Where the next buffer starts.
        var offset: Int64 = 0
        var stopped = false
        /// Why the bytes cannot come, when the last read said so.
        var failure: PlayerError?
        /// A read is waiting for bytes (the player shows it as buffering).
        var isWaiting = false
        /// decodebin's type-finding is over: every read from here on is the demuxer's.
        var typeKnown = false
        /// GStreamer refused the appsrc's set-up or a buffer (`failure` says how): every later
        /// request for bytes ends the stream at once, so the player stops and says why.
        var refused = false
    }

    /// Bytes in one buffer when appsrc does not say: large enough for few calls, small enough
    /// that the first frame needs no more than the demuxer asks for.
    private static let chunk = 64 * 1024
    /// Bytes from byte 0 that are enough for the type finder, whatever it asks (up to 128 KiB):
    /// it copes with fewer.
    private static let typeFinding = 64 * 1024
    /// The most one buffer holds, whatever a demuxer asks (it asks far less in practice).
    private static let largestRead = 16 << 20
    /// Seconds one read waits before it checks whether the pipeline stopped.
    private static let step = 0.2

    init(source: ByteSource) { self.source = source }

    var failure: PlayerError? { state.withLock { $0.failure } }
    var isWaiting: Bool { state.withLock { $0.isWaiting } }

    func stop() { state.withLock { $0.stopped = true } }

    /// The type-finder has decided (decodebin's typefind element said `have-type`).
    func typeFound() { state.withLock { $0.typeKnown = true } }

    /// Configures the appsrc that playbin made for `appsrc://`.
    func attach(_ element: UnsafeMutablePointer<GstElement>) {
        do {
            try GStreamer.setProperty(element, "stream-type", .int(Int64(GST_APP_STREAM_TYPE_RANDOM_ACCESS.rawValue)))
            try GStreamer.setProperty(element, "format", .int(Int64(GST_FORMAT_BYTES.rawValue)))
            try GStreamer.setProperty(element, "size", .int(source.size ?? -1))
        } catch {
            // Not random access, the demuxer's reads would land anywhere: no bytes go.
            refuse(error)
        }
        var callbacks = GstAppSrcCallbacks()
        callbacks.need_data = { appsrc, length, data in
            Unmanaged<StreamFeed>.fromOpaque(data!).takeUnretainedValue().needData(appsrc!, length: length)
        }
        callbacks.seek_data = { _, offset, data in
            let feed = Unmanaged<StreamFeed>.fromOpaque(data!).takeUnretainedValue()
            feed.state.withLock { $0.offset = Int64(clamping: offset) }
            return 1
        }
        let appsrc = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstAppSrc.self)
        gst_app_src_set_callbacks(appsrc, &callbacks, Unmanaged.passRetained(self).toOpaque()) { data in
            Unmanaged<StreamFeed>.fromOpaque(data!).release()
        }
    }

    /// Pushes the next buffer from the current offset, waiting for its bytes.
    ///
    /// A demuxer that pulls (matroskademux, qtdemux) asks for an exact length and takes a shorter
    /// buffer for the end of the file: a short buffer in the middle would end the video there.
    /// So with a length, the buffer is pushed only once all of it is on disk (or the file ends);
    /// without one (push mode), what is there goes at once. While the type is not known, from
    /// byte 0 `typeFinding` bytes are enough: waiting for all the type finder asks would hold
    /// the first frame back.
    private func needData(_ appsrc: UnsafeMutablePointer<GstAppSrc>, length: guint) {
        if state.withLock({ $0.refused }) {
            gst_app_src_end_of_stream(appsrc)
            return
        }
        let exact = length != guint.max && length != 0
        let wanted = exact ? min(Int(length), Self.largestRead) : Self.chunk
        var start = state.withLock { $0.offset }
        var collected: [UInt8] = []
        // Type-finders probe here and there (MP3's the middle, tag finders the end): a probe where
        // nothing is on disk yet ends there at once, instead of waiting for (and fetching) a part
        // the demuxer may never read. The start, which they need, is on disk before Play.
        if !state.withLock({ $0.typeKnown }), source.isAvailable(at: start) == false {
            gst_app_src_end_of_stream(appsrc)
            return
        }
        while true {
            let (offset, stopped) = state.withLock { ($0.offset, $0.stopped) }
            if stopped { return }
            // A seek moved the offset while this one waited: start over there.
            if offset != start { start = offset; collected = [] }
            let next = start + Int64(collected.count)
            let enough = start == 0 && !state.withLock({ $0.typeKnown }) ? min(wanted, Self.typeFinding) : wanted
            let atEnd = source.size.map { next >= $0 } ?? false
            if atEnd || collected.count >= enough {
                if collected.isEmpty {
                    gst_app_src_end_of_stream(appsrc)
                } else {
                    push(collected, at: start, to: appsrc)
                }
                return
            }
            let bytes: [UInt8]
            do {
                bytes = try source.read(at: next, count: wanted - collected.count, timeout: Self.step)
            } catch {
                // What came before the hole still goes: the demuxer takes the short buffer for
                // the end, and the player says why from `failure`.
                let failure: PlayerError = error as? ByteSourceError == .notDownloaded
                    ? .notDownloaded : .unreadable(detail: "\(error)")
                if collected.isEmpty {
                    state.withLock {
                        $0.isWaiting = false
                        $0.failure = failure
                    }
                    gst_app_src_end_of_stream(appsrc)
                } else {
                    push(collected, at: start, to: appsrc, failure: failure)
                }
                return
            }
            if bytes.isEmpty {
                if source.size == nil {
                    if collected.isEmpty { gst_app_src_end_of_stream(appsrc) } else { push(collected, at: start, to: appsrc) }
                    return
                }
                state.withLock { $0.isWaiting = true }
                continue
            }
            collected += bytes
            if !exact { push(collected, at: start, to: appsrc); return }
            if collected.count < enough { state.withLock { $0.isWaiting = true } }
        }
    }

    /// Pushes `bytes` as the buffer at `offset`; `failure` says why it is short, if it is.
    private func push(_ bytes: [UInt8], at offset: Int64, to appsrc: UnsafeMutablePointer<GstAppSrc>,
                      failure: PlayerError? = nil) {
        state.withLock {
            $0.isWaiting = false
            $0.failure = failure
            // Unless a seek came meanwhile (it set the offset to where the next buffer starts).
            if $0.offset == offset { $0.offset = offset + Int64(bytes.count) }
        }
        guard let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil) else { return }
        _ = bytes.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes.count)) }
        fetchplay_buffer_set_offset(buffer, guint64(offset))
        // Takes the buffer. FLUSHING: a seek or a stop came meanwhile; EOS: the appsrc was at
        // the end of its stream (this feed ended it for a part not on disk, or the demuxer is
        // done) until the next seek. Either way the next request says what is wanted (seen
        // with a second video handed to a window still playing the first: stopping there broke
        // it). Anything else is GStreamer refusing the stream's bytes.
        let flow = gst_app_src_push_buffer(appsrc, buffer)
        guard flow != GST_FLOW_OK, flow != GST_FLOW_FLUSHING, flow != GST_FLOW_EOS else { return }
        refuse(GStreamerError.bufferRefused(flow: gst_flow_get_name(flow).map { String(cString: $0) } ?? "\(flow.rawValue)").logged())
    }

    /// Stops feeding for good, with `error` (already logged) as the reason the player gives.
    private func refuse(_ error: GStreamerError) {
        state.withLock {
            $0.refused = true
            $0.failure = error.playerError
        }
    }
}
